// Thin wrappers: MPI types and buffers in one place.
#include "comm/collectives.hpp"

namespace minigpu::comm {
namespace {

double reduce_one(double value, MPI_Op op, MPI_Comm comm) {
  double out = 0;
  MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, op, comm);
  return out;
}

}  // namespace

void barrier(MPI_Comm comm) { MPI_Barrier(comm); }

std::vector<double> max_over_ranks(const std::vector<double>& values, MPI_Comm comm) {
  std::vector<double> out(values.size());
  MPI_Allreduce(values.data(), out.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_MAX, comm);
  return out;
}

double min_over_ranks(double value, MPI_Comm comm) { return reduce_one(value, MPI_MIN, comm); }
double max_over_ranks(double value, MPI_Comm comm) { return reduce_one(value, MPI_MAX, comm); }
double sum_over_ranks(double value, MPI_Comm comm) { return reduce_one(value, MPI_SUM, comm); }

bool all_ranks(bool value, MPI_Comm comm) {
  int local = value ? 1 : 0, all = 0;
  MPI_Allreduce(&local, &all, 1, MPI_INT, MPI_MIN, comm);
  return all == 1;
}

std::vector<std::string> allgather_strings(const std::string& value, MPI_Comm comm) {
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  int length = static_cast<int>(value.size());
  std::vector<int> lengths(ranks), offsets(ranks, 0);
  MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm);
  for (int r = 1; r < ranks; ++r) offsets[r] = offsets[r - 1] + lengths[r - 1];
  std::string all(static_cast<std::size_t>(offsets[ranks - 1] + lengths[ranks - 1]), '\0');
  MPI_Allgatherv(value.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, comm);
  std::vector<std::string> out;
  for (int r = 0; r < ranks; ++r) out.push_back(all.substr(offsets[r], lengths[r]));
  return out;
}

}  // namespace minigpu::comm
