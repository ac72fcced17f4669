#include "base/secrets.h"

#include <gtest/gtest.h>

namespace ssdlab {
namespace {

TEST(MaskSecrets, MasksTheUrlPasswordAndKeepsTheRest) {
  EXPECT_EQ(MaskSecrets("run 'a' done (database postgresql://lab:s3cret@db1:5432/ssdlab)"),
            "run 'a' done (database postgresql://lab:***@db1:5432/ssdlab)");
  EXPECT_EQ(MaskSecrets("postgres://lab:p@ss@db1/x"), "postgres://lab:***@db1/x");
  EXPECT_EQ(MaskSecrets("--from postgresql://a:x@h/d --to postgresql://b:y@/e?host=/s"),
            "--from postgresql://a:***@h/d --to postgresql://b:***@/e?host=/s");
  // No password: unchanged (a user without one, a port, a file path).
  for (const char* same : {"postgresql://lab@db1:5432/ssdlab", "postgresql://db1:5432/ssdlab",
                           "/tmp/a:b@c/results.db", "results.db", ""})
    EXPECT_EQ(MaskSecrets(same), same);
}

TEST(MaskSecrets, MasksPasswordKeysOfQueriesAndKeywordStrings) {
  EXPECT_EQ(MaskSecrets("postgresql:///ssdlab?host=/run/pg&password=s3cret&sslmode=disable"),
            "postgresql:///ssdlab?host=/run/pg&password=***&sslmode=disable");
  EXPECT_EQ(MaskSecrets("host=db1 password=s3cret dbname=ssdlab"),
            "host=db1 password=*** dbname=ssdlab");
  EXPECT_EQ(MaskSecrets("host=db1 PASSWORD = 'two words' dbname=x"),
            "host=db1 PASSWORD = *** dbname=x");
  EXPECT_EQ(MaskSecrets("password='it\\'s' x"), "password=*** x");
}

}  // namespace
}  // namespace ssdlab
