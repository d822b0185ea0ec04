// The bookkeeping under the distributed products: even partitions, process grids, SUMMA's
// panel cuts, strided GEMM, and MPI over Views on both transports.
#include "comm/views.hpp"
#include "core/dispatch.hpp"
#include "experiment_harness.hpp"
#include "kernels/block_partition.hpp"
#include "kernels/fill_integers.hpp"
#include "kernels/gemm.hpp"
#include "test_support.hpp"

#include <string>
#include <vector>

namespace minigpu {
namespace {

using testing::world_rank;
using testing::world_size;

TEST(BlockPartition, SplitsUnevenSizesFrontLoaded) {
  const auto p = kernels::block_partition(10, 4);
  EXPECT_EQ(p.counts, (std::vector<std::int64_t>{3, 3, 2, 2}));
  EXPECT_EQ(p.offsets, (std::vector<std::int64_t>{0, 3, 6, 8}));
  EXPECT_EQ(p.owner(0), 0);
  EXPECT_EQ(p.owner(5), 1);
  EXPECT_EQ(p.owner(6), 2);
  EXPECT_EQ(p.owner(9), 3);
  EXPECT_EQ(p.largest(), 3);
  EXPECT_EQ(kernels::block_partition(7, 3).counts, (std::vector<std::int64_t>{3, 2, 2}));
  EXPECT_EQ(kernels::block_partition(13, 1).counts, (std::vector<std::int64_t>{13}));
  EXPECT_EQ(kernels::block_partition(4, 4).offsets, (std::vector<std::int64_t>{0, 1, 2, 3}));
}

// Under the vendor BLAS each chunk packs again the operand the chunks share (B's panel for rows,
// A's for columns): the chunks cut C's longer side, so the one packed again is the smaller panel.
TEST(BlockPartition, ProgressChunksCutTheLongerSideInTwoAtMost) {
  const auto rows_of = [](std::int64_t rows, std::int64_t cols) {
    const auto chunks = kernels::progress_chunks(rows, cols);
    EXPECT_FALSE(chunks.columns) << rows << " x " << cols;
    return chunks.parts.counts;
  };
  const auto columns_of = [](std::int64_t rows, std::int64_t cols) {
    const auto chunks = kernels::progress_chunks(rows, cols);
    EXPECT_TRUE(chunks.columns) << rows << " x " << cols;
    return chunks.parts.counts;
  };
  EXPECT_EQ(rows_of(100, 100), (std::vector<std::int64_t>{100}));
  EXPECT_EQ(rows_of(511, 300), (std::vector<std::int64_t>{511}));
  EXPECT_EQ(rows_of(600, 600), (std::vector<std::int64_t>{300, 300}));
  EXPECT_EQ(rows_of(1025, 64), (std::vector<std::int64_t>{513, 512}));
  EXPECT_EQ(columns_of(2048, 4096), (std::vector<std::int64_t>{2048, 2048}));
  EXPECT_EQ(columns_of(260, 520), (std::vector<std::int64_t>{260, 260}));
  EXPECT_EQ(columns_of(10, 300), (std::vector<std::int64_t>{300}));
  // Where MPI is called during the product (a GPU's launch returns at once; the native host
  // kernel calls it between its blocks), one product a panel.
  const auto whole = kernels::progress_chunks(2048, 4096, true);
  EXPECT_EQ(whole.parts.counts, (std::vector<std::int64_t>{4096}));
}

TEST(BlockPartition, PanelsCutWhereEitherPartitionDoes) {
  const auto rows = kernels::block_partition(10, 3), cols = kernels::block_partition(10, 2);
  EXPECT_EQ(kernels::panel_boundaries(cols, rows, 10), (std::vector<std::int64_t>{0, 4, 5, 7, 10}));
  EXPECT_EQ(kernels::panel_boundaries(cols, rows, 10, 2), (std::vector<std::int64_t>{0, 2, 4, 5, 7, 9, 10}));
}

TEST(ProcessGrid, MostSquareWithMoreRows) {
  const std::vector<std::pair<int, std::pair<int, int>>> want = {{1, {1, 1}}, {2, {2, 1}},  {3, {3, 1}},
                                                                 {4, {2, 2}}, {6, {3, 2}},  {7, {7, 1}},
                                                                 {8, {4, 2}}, {12, {4, 3}}, {16, {4, 4}}};
  for (const auto& [p, grid] : want) {
    const auto g = kernels::square_grid(p);
    EXPECT_EQ(std::make_pair(g.rows, g.cols), grid) << "p=" << p;
  }
}

template <class P>
class GemmBlock : public testing::OnEveryDevice<P> {};
TYPED_TEST_SUITE(GemmBlock, testing::EveryDeviceAndDtype, testing::OnNames);

// Strided blocks, accumulate or not, with the native kernel and the vendor BLAS; the last
// shape spans several cache blocks of the host kernel in every dimension, with ragged edges.
// The fourth is small enough for the host kernel to read A and B in place, strided: its last
// 4 + 12 rows run as two tiles of 8, its last 4 columns as half a vector.
TYPED_TEST(GemmBlock, EveryKernelMatchesHostLoop) {
  using T = typename TypeParam::value_type;
  with_memory_space(this->device(), [&](auto space) {
    using View = Kokkos::View<T*, typename decltype(space)::type>;
    for (const GemmDims d :
         {GemmDims{7, 13, 9, 11, 15, 14}, GemmDims{70, 35, 300, 301, 36, 37}, GemmDims{5, 4, 0, 1, 4, 4},
          GemmDims{28, 100, 44, 50, 103, 105}, GemmDims{301, 531, 700, 701, 533, 540}}) {
      View a("test::a", d.m * d.lda), b("test::b", d.k * d.ldb), c0("test::c0", d.m * d.ldc);
      kernels::fill_small_integers(a, 3);
      kernels::fill_small_integers(b, 4);
      kernels::fill_small_integers(c0, 5);
      const auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
      const auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
      const auto hc0 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c0);
      for (bool accumulate : {false, true}) {
        std::vector<T> want(hc0.data(), hc0.data() + hc0.extent(0));
        for (std::int64_t i = 0; i < d.m; ++i)
          for (std::int64_t j = 0; j < d.n; ++j) {
            T acc = accumulate ? want[i * d.ldc + j] : T(0);
            for (std::int64_t p = 0; p < d.k; ++p) acc += ha(i * d.lda + p) * hb(p * d.ldb + j);
            want[i * d.ldc + j] = acc;
          }
        for (const GemmKernel kernel : {GemmKernel::native, GemmKernel::vendor}) {
          View c("test::c", c0.extent(0));
          Kokkos::deep_copy(c, c0);
          kernels::gemm(kernel, c, a, b, d, accumulate);
          const auto hc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c);
          std::int64_t wrong = 0;
          for (std::size_t e = 0; e < want.size(); ++e) wrong += hc(e) != want[e] ? 1 : 0;
          EXPECT_EQ(wrong, 0) << to_string(kernel) << " on " << describe(this->device()) << " m=" << d.m
                              << " accumulate=" << accumulate;
        }
      }
    }
  });
}

TEST(CommViews, RingSendrecvAndBroadcastOnBothPaths) {
  const int rank = world_rank(), size = world_size();
  for (auto path : {comm::CommPath::direct, comm::CommPath::staged}) {
    const comm::Transport<double> t(path, 10, "test::stage");
    Kokkos::View<double*, Kokkos::HostSpace> send("test::send", 5), recv("test::recv", 5);
    Kokkos::deep_copy(send, rank + 0.5);
    comm::sendrecv(send, (rank + 1) % size, recv, (rank + size - 1) % size, 3, comm::Communicator::world(),
                   t);
    EXPECT_EQ(recv(4), (rank + size - 1) % size + 0.5) << comm::to_string(path);
    Kokkos::deep_copy(send, rank == size - 1 ? 42.0 : -1.0);
    comm::broadcast(send, size - 1, comm::Communicator::world(), t);
    EXPECT_EQ(send(0), 42.0) << comm::to_string(path);
  }
}

TEST(CommViews, CommPathFollowsTheSetting) {
  EXPECT_EQ(comm::choose_comm_path("off", cpu()), comm::CommPath::staged);
  EXPECT_EQ(comm::choose_comm_path("auto", cpu()), comm::CommPath::direct)
      << "host memory always goes direct";
  EXPECT_EQ(comm::choose_comm_path("on", cpu()), comm::CommPath::direct);
  EXPECT_THROW(comm::choose_comm_path("sometimes", cpu()), std::invalid_argument);
  EXPECT_FALSE(comm::describe_mpi_device_support().empty());
}

}  // namespace
}  // namespace minigpu
