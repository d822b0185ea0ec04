// The few collectives the runner and experiments need, over MPI_COMM-style communicators.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

namespace minigpu::comm {

void barrier(MPI_Comm comm);
/// Elementwise max over ranks of equally long vectors, result on every rank.
std::vector<double> max_over_ranks(const std::vector<double>& values, MPI_Comm comm);
double min_over_ranks(double value, MPI_Comm comm);
double max_over_ranks(double value, MPI_Comm comm);
double sum_over_ranks(double value, MPI_Comm comm);
/// True on every rank iff `value` is true on every rank.
bool all_ranks(bool value, MPI_Comm comm);
/// Every rank's string, in rank order, on every rank.
std::vector<std::string> allgather_strings(const std::string& value, MPI_Comm comm);

}  // namespace minigpu::comm
