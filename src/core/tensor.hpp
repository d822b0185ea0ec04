// Tensor<T>: a Kokkos View in the memory space of its device, which it always knows.
#pragma once

#include "core/backend.hpp"
#include "core/device.hpp"
#include "core/errors.hpp"
#include "core/shape.hpp"

#include <Kokkos_Core.hpp>

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace minigpu {

/// Dense row-major tensor of rank 0..2 (rank 0 only as a reduction result). Copying a
/// Tensor copies the handle, not the data, as Views do; data moves only via copy_to/to.
template <class T>
class Tensor {
 public:
  using value_type = T;
  using HostView = Kokkos::View<T*, HostMemSpace>;
  using GpuView = Kokkos::View<T*, GpuMemSpace>;

  Tensor() = default;
  /// Allocates zero-filled storage on `device`; `label` names the View for Kokkos tools.
  Tensor(Shape shape, Device device, const std::string& label = "minigpu::tensor");

  Device device() const { return device_; }
  const Shape& shape() const { return shape_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  std::int64_t numel() const { return defined_ ? minigpu::numel(shape_) : 0; }
  std::int64_t rows() const { return rank() == 2 ? shape_[0] : 1; }
  std::int64_t cols() const { return rank() == 0 ? 1 : shape_.back(); }
  DType dtype() const { return dtype_of<T>::value; }
  bool defined() const { return defined_; }
  std::string label() const;

  /// True when both tensors view the same memory (what to() keeps and copy_to never does).
  bool shares_storage_with(const Tensor& other) const;
  /// Always allocates new memory on `device` and copies (MXNet copyto).
  Tensor copy_to(Device device) const;
  /// Returns *this, sharing storage, if already on `device`; otherwise copy_to(device).
  Tensor to(Device device) const;
  /// Same data viewed with another shape of equal element count (storage shared).
  Tensor reshape(const Shape& shape) const;
  /// Copies the values to the host, row-major.
  std::vector<T> to_vector() const;
  /// The single value of a one-element tensor, copied to the host (a host sync).
  T item() const;

  /// The storage View in memory space Space (HostMemSpace for cpu and emulated GPUs,
  /// GpuMemSpace for a real GPU). Throws std::logic_error when the tensor is empty or its
  /// storage lives in another space: never an empty View standing in for the data.
  template <class Space>
  const Kokkos::View<T*, Space>& view() const;

 private:
  Device device_;
  Shape shape_;
  bool defined_ = false;
  HostView host_;
  GpuView gpu_;
};

[[noreturn]] void throw_no_storage(const std::string& label, Device device, const char* space);

template <class T>
template <class Space>
const Kokkos::View<T*, Space>& Tensor<T>::view() const {
  static_assert(std::is_same_v<Space, HostMemSpace> || std::is_same_v<Space, GpuMemSpace>,
                "a tensor stores its data in HostMemSpace or GpuMemSpace");
  if (defined_) {
    if constexpr (std::is_same_v<Space, HostMemSpace>) {
      if (uses_host_memory(device_)) return host_;
    } else {
      if (!uses_host_memory(device_)) return gpu_;
    }
  }
  throw_no_storage(defined_ ? label() : std::string("an empty tensor"), device_, Space::name());
}

/// Calls f with the storage View of each tensor, all in the memory space of `device`;
/// every tensor must already be on `device` (else std::logic_error). This is where the
/// runtime device becomes a compile-time memory space for the kernels.
template <class F, class... Ts>
decltype(auto) with_views(Device device, F&& f, const Ts&... tensors) {
  if (uses_host_memory(device)) return f(tensors.template view<HostMemSpace>()...);
  return f(tensors.template view<GpuMemSpace>()...);
}

/// Throws DeviceMismatchError naming both devices unless all tensors are on one device.
template <class T, class... Rest>
Device common_device(const Tensor<T>& first, const Rest&... rest);
[[noreturn]] void throw_device_mismatch(Device a, Device b);

template <class T, class... Rest>
Device common_device(const Tensor<T>& first, const Rest&... rest) {
  const Device d = first.device();
  ((rest.device() != d ? throw_device_mismatch(d, rest.device()) : void()), ...);
  return d;
}

extern template class Tensor<float>;
extern template class Tensor<double>;

}  // namespace minigpu
