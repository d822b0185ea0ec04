// Ranks hear each other over the heartbeat, outside MPI: every rank's news reaches every other.
#include "comm/collectives.hpp"
#include "comm/heartbeat.hpp"
#include "core/stopwatch.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace minigpu {
namespace {

TEST(Heartbeat, EveryRankHearsEveryOther) {
  const auto world = comm::Communicator::world();
  comm::Heartbeat beat(world);
  const std::string mine = "rank " + std::to_string(world.rank()) + " here";
  // Datagrams may be dropped: every rank sends again until every rank has heard every other
  // (agreed each round, so nobody stops sending while another still waits), for at most 10 s.
  const auto start = Clock::now();
  bool everyone_heard = false;
  while (!everyone_heard && comm::max_over_ranks(seconds_since(start), world) < 10) {
    beat.send(mine);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    beat.receive();
    bool heard = true;
    for (const auto& p : beat.peers()) heard = heard && !p.news.empty();
    everyone_heard = comm::all_ranks(heard, world);
  }
  const auto peers = beat.peers();
  ASSERT_EQ(static_cast<int>(peers.size()), world.size());
  for (int r = 0; r < world.size(); ++r) {
    EXPECT_EQ(peers[r].news, "rank " + std::to_string(r) + " here") << "from rank " << r;
    EXPECT_LT(peers[r].silent_s, 5.0) << "rank " << r;
  }
}

}  // namespace
}  // namespace minigpu
