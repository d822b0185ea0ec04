// Every op's values against a plain host loop, broadcasting included, on every device.
#include "ops/tensor_factory.hpp"
#include "ops/tensor_ops.hpp"
#include "test_support.hpp"

#include <cmath>
#include <functional>

namespace minigpu {
namespace {

// T a template parameter, not a member alias, so test bodies may name their own T.
template <class P, class T>
class TensorOpsFixture : public testing::OnEveryDevice<P> {
 protected:
  // Positive values keep pow and division well defined.
  std::vector<T> a_ = {1, 2, 3, 4, 5, 6};
  std::vector<T> b_ = {0.5, 1.5, 2, 0.25, 3, 1};
  static T tolerance() { return std::is_same_v<T, float> ? T(1e-5) : T(1e-12); }

  void expect_near(const std::vector<T>& got, const std::vector<T>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      EXPECT_NEAR(got[i], want[i], tolerance() * (1 + std::abs(want[i]))) << "at " << i;
    }
  }
  std::vector<T> zip(const std::vector<T>& x, const std::vector<T>& y, std::function<T(T, T)> f) {
    std::vector<T> out(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) out[i] = f(x[i], y[i]);
    return out;
  }
};
// GoogleTest takes a one-parameter fixture template; clang (hipcc) does not match a template
// with a defaulted second parameter to it, as GCC does.
template <class P>
class TensorOps : public TensorOpsFixture<P, typename P::value_type> {};
TYPED_TEST_SUITE(TensorOps, testing::EveryDeviceAndDtype, testing::OnNames);

TYPED_TEST(TensorOps, ElementwiseMatchesHost) {
  using T = typename TypeParam::value_type;
  const Device d = this->device();
  const auto x = from_vector<T>(this->a_, {2, 3}, d);
  const auto y = from_vector<T>(this->b_, {2, 3}, d);
  this->expect_near((x + y).to_vector(), this->zip(this->a_, this->b_, std::plus<T>()));
  this->expect_near((x - y).to_vector(), this->zip(this->a_, this->b_, std::minus<T>()));
  this->expect_near((x * y).to_vector(), this->zip(this->a_, this->b_, std::multiplies<T>()));
  this->expect_near((x / y).to_vector(), this->zip(this->a_, this->b_, std::divides<T>()));
  this->expect_near(pow(x, y).to_vector(),
                    this->zip(this->a_, this->b_, [](T p, T q) { return std::pow(p, q); }));
  std::vector<T> e(this->a_.size());
  for (std::size_t i = 0; i < e.size(); ++i) e[i] = std::exp(this->a_[i]);
  this->expect_near(exp(x).to_vector(), e);
}

TYPED_TEST(TensorOps, ScalarsOnEitherSide) {
  using T = typename TypeParam::value_type;
  const auto x = from_vector<T>({1, 2, 4}, {3}, this->device());
  this->expect_near((x + 1.0).to_vector(), {2, 3, 5});
  this->expect_near((x - 1.0).to_vector(), {0, 1, 3});
  this->expect_near((10.0 - x).to_vector(), {9, 8, 6});
  this->expect_near((x * 3.0).to_vector(), {3, 6, 12});
  this->expect_near((2.0 * x).to_vector(), {2, 4, 8});
  this->expect_near((x / 2.0).to_vector(), {0.5, 1, 2});
  this->expect_near((8.0 / x).to_vector(), {8, 4, 2});
  this->expect_near(pow(x, 2.0).to_vector(), {1, 4, 16});
}

TYPED_TEST(TensorOps, BroadcastsRowsAndColumns) {
  using T = typename TypeParam::value_type;
  const auto x = from_vector<T>(this->a_, {2, 3}, this->device());
  // The chapter adds a 1×3 row to a 2×3 matrix.
  const auto row = from_vector<T>({10, 20, 30}, {1, 3}, this->device());
  this->expect_near((x + row).to_vector(), {11, 22, 33, 14, 25, 36});
  this->expect_near((row + x).to_vector(), {11, 22, 33, 14, 25, 36});
  EXPECT_EQ((x + row).shape(), (Shape{2, 3}));
  const auto vec = from_vector<T>({1, 2, 3}, {3}, this->device());
  this->expect_near((x * vec).to_vector(), {1, 4, 9, 4, 10, 18});
  const auto col = from_vector<T>({100, 200}, {2, 1}, this->device());
  this->expect_near((x - col).to_vector(), {-99, -98, -97, -196, -195, -194});
  const auto outer =
      from_vector<T>({1, 2}, {2, 1}, this->device()) * from_vector<T>({1, 10, 100}, {1, 3}, this->device());
  this->expect_near(outer.to_vector(), {1, 10, 100, 2, 20, 200});
}

TYPED_TEST(TensorOps, ShapeMismatchesThrow) {
  using T = typename TypeParam::value_type;
  const auto x = ones<T>({2, 3}, this->device());
  EXPECT_THROW((void)(x + ones<T>({3, 2}, this->device())), ShapeError);
  EXPECT_THROW((void)(x + ones<T>({2}, this->device())), ShapeError);
  EXPECT_THROW((void)matmul(x, ones<T>({2, 3}, this->device())), ShapeError);
  EXPECT_THROW((void)matmul(ones<T>({3}, this->device()), x), ShapeError);
  EXPECT_THROW((void)x.item(), ShapeError);
  EXPECT_THROW((void)x.reshape({4}), ShapeError);
}

TYPED_TEST(TensorOps, ReductionsMatchHost) {
  using T = typename TypeParam::value_type;
  const auto x = from_vector<T>(this->a_, {2, 3}, this->device());
  const auto s = sum(x);
  EXPECT_EQ(s.rank(), 0);
  EXPECT_NEAR(s.item(), T(21), this->tolerance());
  EXPECT_NEAR(frobenius_norm(x).item(), std::sqrt(T(91)), this->tolerance() * 10);
}

// Enough entries for the host's blocked sum of squares (kernels/reduce.hpp) to fill blocks and
// lanes and leave a ragged last block: small integers, so every order of summing is exact.
TYPED_TEST(TensorOps, NormSumsEveryBlockAndLaneOfALongVector) {
  using T = typename TypeParam::value_type;
  const std::int64_t n = 2 * 2048 + 67;
  std::vector<T> v(static_cast<std::size_t>(n));
  double squares = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    v[static_cast<std::size_t>(i)] = T(i % 3 + 1);
    squares += static_cast<double>((i % 3 + 1) * (i % 3 + 1));
  }
  const auto x = from_vector<T>(v, {n}, this->device());
  const double norm = std::sqrt(squares);
  EXPECT_NEAR(static_cast<double>(frobenius_norm(x).item()), norm, this->tolerance() * norm);
}

TYPED_TEST(TensorOps, MatmulMatchesHostTripleLoop) {
  using T = typename TypeParam::value_type;
  const std::int64_t m = 7, k = 5, n = 3;
  const Device d = this->device();
  const auto a = rand<T>({m, k}, d, 11, T(-1), T(1));
  const auto b = rand<T>({k, n}, d, 12, T(-1), T(1));
  const auto av = a.to_vector(), bv = b.to_vector();
  std::vector<T> want(m * n, T(0));
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t p = 0; p < k; ++p)
      for (std::int64_t j = 0; j < n; ++j) want[i * n + j] += av[i * k + p] * bv[p * n + j];
  const auto c = matmul(a, b);
  EXPECT_EQ(c.shape(), (Shape{m, n}));
  this->expect_near(c.to_vector(), want);
  const auto v = from_vector<T>({1, 0, 0, 0, 0}, {k}, d);
  const auto first_col = matmul(a, v).to_vector();
  ASSERT_EQ(first_col.size(), std::size_t(m));
  for (std::int64_t i = 0; i < m; ++i) EXPECT_EQ(first_col[i], av[i * k]);
}

}  // namespace
}  // namespace minigpu
