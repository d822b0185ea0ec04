// Values between ranks as bytes (core/wire.hpp, comm/typed_exchange.hpp): what a writer puts a
// reader takes back in order, a reader out of step fails loudly, and the structs the ranks
// agree on (the ceilings, the rank map) arrive whole on every rank.
#include "comm/typed_exchange.hpp"
#include "core/wire.hpp"
#include "io/ceiling_table.hpp"
#include "io/provenance.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace minigpu {
namespace {

// A struct lists its fields once; the writer and the reader both walk that list.
struct Sample {
  int id = 0;
  std::string name;
  std::vector<double> values;
};
template <class Archive>
void fields(Archive& a, Sample& s) {
  a(s.id, s.name, s.values);
}

TEST(Wire, AStructTravelsByTheFieldsItLists) {
  wire::Writer out;
  out.put(std::vector<Sample>{{1, "a", {0.5}}, {2, "", {}}});
  wire::Reader in(out.bytes());
  const auto back = in.get<std::vector<Sample>>();
  in.expect_end();
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].id, 1);
  EXPECT_EQ(back[0].name, "a");
  EXPECT_EQ(back[0].values, std::vector<double>{0.5});
  EXPECT_EQ(back[1].id, 2);
  EXPECT_TRUE(back[1].values.empty());
}

TEST(Wire, WhatIsPutComesBackInOrder) {
  wire::Writer out;
  out.put(-7);
  out.put(2.5);
  out.put(std::string("gpu(0) = NVIDIA H200"));
  out.put(std::string());
  out.put(std::vector<std::int64_t>{1, 1 << 20, -3});
  out.put(std::map<std::string, double>{{"a", 1.0}, {"b", -2.0}});
  wire::Reader in(out.bytes());
  EXPECT_EQ(in.get<int>(), -7);
  EXPECT_EQ(in.get<double>(), 2.5);
  EXPECT_EQ(in.get<std::string>(), "gpu(0) = NVIDIA H200");
  EXPECT_EQ(in.get<std::string>(), "");
  EXPECT_EQ((in.get<std::vector<std::int64_t>>()), (std::vector<std::int64_t>{1, 1 << 20, -3}));
  EXPECT_EQ((in.get<std::map<std::string, double>>()),
            (std::map<std::string, double>{{"a", 1.0}, {"b", -2.0}}));
  EXPECT_NO_THROW(in.expect_end());
}

TEST(Wire, AReaderOutOfStepWithItsWriterThrows) {
  wire::Writer out;
  out.put(std::string("abc"));
  out.put(1.0);
  {
    wire::Reader in(out.bytes());
    in.get<std::string>();
    EXPECT_THROW(in.expect_end(), std::logic_error) << "a double left unread";
  }
  {
    wire::Reader in(out.bytes());
    in.get<std::string>();
    in.get<double>();
    EXPECT_THROW(in.get<int>(), std::logic_error) << "past the end";
  }
  wire::Writer huge;
  huge.put(std::uint64_t{1} << 40);  // a length no message holds
  wire::Reader in(huge.bytes());
  EXPECT_THROW(in.get<std::string>(), std::logic_error);
}

TEST(TypedExchange, RankZerosCeilingsArriveWholeOnEveryRank) {
  const auto world = comm::Communicator::world();
  CeilingTable mine;
  if (world.rank() == 0) {
    mine.ceilings = {
        {"host_memcpy@1MiB", "host memcpy, 2 threads, 1.0 MiB", 43.6, "GB/s", "std::memcpy", 2 << 20},
        {"host_fma_f32", "float32 FMA peak, 2 threads", 231.1, "GFLOP/s", "12 chains", 0}};
    mine.source = "measured by rank 0 alone";
    mine.doubt = "";
  } else {
    mine.source = "not rank 0's: must not arrive";
  }
  const CeilingTable got = comm::broadcast_value(mine, 0, world);
  ASSERT_EQ(got.ceilings.size(), 2u);
  EXPECT_EQ(got.ceilings[0].name, "host_memcpy@1MiB");
  EXPECT_EQ(got.ceilings[0].bytes, 2 << 20);
  EXPECT_EQ(got.ceilings[1].value, 231.1);
  EXPECT_EQ(got.ceilings[1].unit, "GFLOP/s");
  EXPECT_EQ(got.source, "measured by rank 0 alone");
  EXPECT_EQ(got.find_for("host_memcpy", 1 << 20)->label, "host memcpy, 2 threads, 1.0 MiB");
}

TEST(TypedExchange, EveryRanksPlacementInRankOrder) {
  const auto world = comm::Communicator::world();
  io::RankPlacement mine;
  mine.rank = world.rank();
  mine.host = "node" + std::string(static_cast<std::size_t>(world.rank()), 'x');  // lengths differ
  mine.device_id = world.rank() % 2 == 0 ? -1 : world.rank();
  mine.cores = std::to_string(world.rank());
  mine.threads = 1 + world.rank();
  mine.binding = "round robin";
  const std::vector<io::RankPlacement> all = comm::allgather_values(mine, world);
  ASSERT_EQ(static_cast<int>(all.size()), world.size());
  for (int r = 0; r < world.size(); ++r) {
    EXPECT_EQ(all[r].rank, r);
    EXPECT_EQ(all[r].host, "node" + std::string(static_cast<std::size_t>(r), 'x'));
    EXPECT_EQ(all[r].device_id, r % 2 == 0 ? -1 : r);
    EXPECT_EQ(all[r].threads, 1 + r);
    EXPECT_EQ(all[r].binding, "round robin");
  }
}

}  // namespace
}  // namespace minigpu
