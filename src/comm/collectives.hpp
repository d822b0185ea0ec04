// The collectives the runner, the experiments and the distributed products need.
#pragma once

#include "comm/communicator.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace minigpu::comm {

void barrier(const Communicator& comm);
/// A barrier whose waiting ranks sleep (MPI_Ibarrier tested every millisecond) instead of
/// spinning in MPI's progress loop: for waits on one rank's measurement (the ceilings), which a
/// spinning rank would slow by taking a core.
void barrier_without_spinning(const Communicator& comm);
/// Elementwise max over ranks of equally long vectors, result on every rank.
std::vector<double> max_over_ranks(const std::vector<double>& values, const Communicator& comm);
double min_over_ranks(double value, const Communicator& comm);
double max_over_ranks(double value, const Communicator& comm);
double sum_over_ranks(double value, const Communicator& comm);
/// Elementwise sum over ranks of `count` doubles at `data`, in place, on every rank.
void sum_in_place(double* data, std::int64_t count, const Communicator& comm);
/// True on every rank iff `value` is true on every rank.
bool all_ranks(bool value, const Communicator& comm);
/// Every rank's value, in rank order, on every rank.
std::vector<double> allgather(double value, const Communicator& comm);
/// Every rank's string, in rank order, on every rank.
std::vector<std::string> allgather_strings(const std::string& value, const Communicator& comm);
/// Every rank's vector (lengths may differ), in rank order, on `root`; empty elsewhere.
template <class T>
std::vector<std::vector<T>> gather_to_root(const std::vector<T>& mine, int root, const Communicator& comm);

extern template std::vector<std::vector<double>> gather_to_root(const std::vector<double>&, int,
                                                                const Communicator&);
extern template std::vector<std::vector<std::int64_t>> gather_to_root(const std::vector<std::int64_t>&, int,
                                                                      const Communicator&);

}  // namespace minigpu::comm
