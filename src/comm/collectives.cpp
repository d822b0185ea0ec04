// Thin wrappers: MPI types and buffers in one place. Each marks its wait on other ranks, so
// the run's watchdog can say which collective a rank stopped in.
#include "comm/collectives.hpp"

#include "comm/mpi_types.hpp"
#include "core/progress.hpp"

#include <chrono>
#include <thread>

namespace minigpu::comm {
namespace {

double reduce_one(double value, MPI_Op op, const Communicator& comm) {
  double out = 0;
  const progress::Wait waiting("MPI_Allreduce");
  MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, op, comm.raw());
  return out;
}

}  // namespace

void barrier(const Communicator& comm) {
  const progress::Wait waiting("MPI_Barrier");
  MPI_Barrier(comm.raw());
}

void barrier_without_spinning(const Communicator& comm) {
  const progress::Wait waiting("MPI_Ibarrier");
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Ibarrier(comm.raw(), &request);
  int done = 0;
  MPI_Test(&request, &done, MPI_STATUS_IGNORE);
  while (!done) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
  }
}

std::vector<double> max_over_ranks(const std::vector<double>& values, const Communicator& comm) {
  std::vector<double> out(values.size());
  const progress::Wait waiting("MPI_Allreduce");
  MPI_Allreduce(values.data(), out.data(), int_count(static_cast<std::int64_t>(values.size())), MPI_DOUBLE,
                MPI_MAX, comm.raw());
  return out;
}

double min_over_ranks(double value, const Communicator& comm) { return reduce_one(value, MPI_MIN, comm); }
double max_over_ranks(double value, const Communicator& comm) { return reduce_one(value, MPI_MAX, comm); }
double sum_over_ranks(double value, const Communicator& comm) { return reduce_one(value, MPI_SUM, comm); }

void sum_in_place(double* data, std::int64_t count, const Communicator& comm) {
  const progress::Wait waiting("MPI_Allreduce");
  MPI_Allreduce(MPI_IN_PLACE, data, int_count(count), MPI_DOUBLE, MPI_SUM, comm.raw());
}

bool all_ranks(bool value, const Communicator& comm) {
  int local = value ? 1 : 0, all = 0;
  const progress::Wait waiting("MPI_Allreduce");
  MPI_Allreduce(&local, &all, 1, MPI_INT, MPI_MIN, comm.raw());
  return all == 1;
}

std::vector<double> allgather(double value, const Communicator& comm) {
  std::vector<double> all(static_cast<std::size_t>(comm.size()));
  const progress::Wait waiting("MPI_Allgather");
  MPI_Allgather(&value, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, comm.raw());
  return all;
}

std::vector<std::string> allgather_strings(const std::string& value, const Communicator& comm) {
  const int ranks = comm.size();
  int length = int_count(static_cast<std::int64_t>(value.size()));
  std::vector<int> lengths(ranks), offsets(ranks, 0);
  {
    const progress::Wait waiting("MPI_Allgather");
    MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm.raw());
  }
  for (int r = 1; r < ranks; ++r) offsets[r] = offsets[r - 1] + lengths[r - 1];
  std::string all(static_cast<std::size_t>(offsets[ranks - 1] + lengths[ranks - 1]), '\0');
  const progress::Wait waiting("MPI_Allgatherv");
  MPI_Allgatherv(value.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
                 comm.raw());
  std::vector<std::string> out;
  out.reserve(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) out.push_back(all.substr(offsets[r], lengths[r]));
  return out;
}

template <class T>
std::vector<std::vector<T>> gather_to_root(const std::vector<T>& mine, int root, const Communicator& comm) {
  const int ranks = comm.size();
  const bool is_root = comm.rank() == root;
  int length = int_count(static_cast<std::int64_t>(mine.size()));
  std::vector<int> lengths(is_root ? ranks : 0), offsets(is_root ? ranks : 0, 0);
  {
    const progress::Wait waiting("MPI_Gather");
    MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, root, comm.raw());
  }
  for (int r = 1; is_root && r < ranks; ++r) offsets[r] = offsets[r - 1] + lengths[r - 1];
  std::vector<T> all(is_root ? static_cast<std::size_t>(offsets.back() + lengths.back()) : 0);
  const progress::Wait waiting("MPI_Gatherv");
  MPI_Gatherv(mine.data(), length, mpi_datatype<T>(), all.data(), lengths.data(), offsets.data(),
              mpi_datatype<T>(), root, comm.raw());
  std::vector<std::vector<T>> out;
  for (int r = 0; is_root && r < ranks; ++r)
    out.emplace_back(all.begin() + offsets[r], all.begin() + offsets[r] + lengths[r]);
  return out;
}

template std::vector<std::vector<double>> gather_to_root(const std::vector<double>&, int,
                                                         const Communicator&);
template std::vector<std::vector<std::int64_t>> gather_to_root(const std::vector<std::int64_t>&, int,
                                                               const Communicator&);

}  // namespace minigpu::comm
