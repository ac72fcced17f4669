#include "engine/thread_sched.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <thread>

namespace ssdlab {
namespace {

// Each case runs on a thread of its own: the calls change only the calling thread.
template <class F>
void OnNewThread(F f) {
  std::thread(f).join();
}

TEST(ThreadSched, BatchPolicyIsTakenOnceAndRestored) {
  OnNewThread([] {
    ASSERT_EQ(sched_getscheduler(0), SCHED_OTHER);
    EXPECT_TRUE(TakeBatchPolicy());
    EXPECT_EQ(sched_getscheduler(0), SCHED_BATCH);
    EXPECT_FALSE(TakeBatchPolicy());  // no longer under the normal policy: left as it is
    EXPECT_FALSE(RequestSlice(300));
    RestoreNormalPolicy();
    EXPECT_EQ(sched_getscheduler(0), SCHED_OTHER);
  });
}

TEST(ThreadSched, PinThisThreadKeepsToTheCpusGiven) {
  cpu_set_t allowed;
  ASSERT_EQ(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
  uint32_t first = 0;
  while (!CPU_ISSET(first, &allowed)) ++first;
  OnNewThread([first] {
    PinThisThread({first});
    cpu_set_t now;
    ASSERT_EQ(pthread_getaffinity_np(pthread_self(), sizeof(now), &now), 0);
    EXPECT_EQ(CPU_COUNT(&now), 1);
    EXPECT_TRUE(CPU_ISSET(first, &now));
  });
  OnNewThread([&allowed] {
    PinThisThread({});  // none: left as it is
    cpu_set_t now;
    ASSERT_EQ(pthread_getaffinity_np(pthread_self(), sizeof(now), &now), 0);
    EXPECT_TRUE(CPU_EQUAL(&now, &allowed));
  });
}

TEST(ThreadSched, SliceKeepsThePolicyAndTheNiceValue) {
  OnNewThread([] {
    // A nice value of this thread's own (raising it needs no privilege), kept through the call.
    errno = 0;
    const int nice = std::min(getpriority(PRIO_PROCESS, 0) + 3, 19);
    ASSERT_EQ(errno, 0);
    ASSERT_EQ(setpriority(PRIO_PROCESS, 0, nice), 0);
    RequestSlice(300);  // taken from Linux 6.12 on (the engine's tests check which)
    EXPECT_EQ(sched_getscheduler(0), SCHED_OTHER);
    EXPECT_EQ(getpriority(PRIO_PROCESS, 0), nice);
  });
}

}  // namespace
}  // namespace ssdlab
