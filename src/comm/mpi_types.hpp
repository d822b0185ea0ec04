// MPI's view of C++ values, shared by the collectives and the View transfers: the datatype of
// an element type, and element counts checked to fit MPI's int.
#pragma once

#include <mpi.h>

#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace minigpu::comm {

template <class T>
MPI_Datatype mpi_datatype();
template <>
inline MPI_Datatype mpi_datatype<float>() {
  return MPI_FLOAT;
}
template <>
inline MPI_Datatype mpi_datatype<double>() {
  return MPI_DOUBLE;
}
template <>
inline MPI_Datatype mpi_datatype<std::int64_t>() {
  return MPI_INT64_T;
}

/// n as an MPI count; throws std::overflow_error when it does not fit an int.
inline int int_count(std::int64_t n) {
  if (n < 0 || n > INT_MAX) throw std::overflow_error("an MPI message of " + std::to_string(n) + " elements");
  return static_cast<int>(n);
}

}  // namespace minigpu::comm
