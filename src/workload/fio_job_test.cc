#include "workload/fio_job.h"

#include <gtest/gtest.h>

namespace ssdlab {
namespace {

TEST(FioJob, Placeholder) { EXPECT_TRUE(true); }

}  // namespace
}  // namespace ssdlab
