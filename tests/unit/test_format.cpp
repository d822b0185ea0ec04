// Printed figures that must not contradict themselves: an interval that holds its median and
// says which side of its mark it lies, a value shown apart from the bound it is said to pass.
#include "io/format.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>

namespace minigpu {
namespace {

// The two ends of "[a, b]" read back as numbers.
std::pair<double, double> read_interval(const std::string& text) {
  const std::size_t comma = text.find(", ");
  return {std::strtod(text.c_str() + 1, nullptr), std::strtod(text.c_str() + comma + 2, nullptr)};
}

// The efficiency of the quickstart's multi_gpu_concurrency once printed "98.96 % ... [99, 99] %".
TEST(Format, IntervalIsRoundedOutwardSoItHoldsItsMedian) {
  EXPECT_EQ(io::interval(98.95, 99.04), "[98.9, 99.1]");
  EXPECT_EQ(io::interval(78.571, 81.452), "[78.5, 81.5]");
  EXPECT_EQ(io::interval(99.96, 99.97), "[99.9, 100]");  // up into the next decade
  EXPECT_EQ(io::interval(0.0012345, 0.0012355), "[0.00123, 0.00124]");
  EXPECT_EQ(io::interval(2.0, 2.0), "[2, 2]");                      // a point stays a point
  EXPECT_EQ(io::interval(1.04e-3, 1.05e-3), "[0.00104, 0.00105]");  // on the grid, give or take an ulp
  std::mt19937_64 gen(7);
  std::uniform_real_distribution<double> exponent(-6, 6), width(0, 0.01);
  for (int i = 0; i < 10000; ++i) {
    const double low = std::pow(10.0, exponent(gen)), high = low * (1 + width(gen));
    const auto [shown_low, shown_high] = read_interval(io::interval(low, high));
    ASSERT_LE(shown_low, low * (1 + 1e-9)) << io::interval(low, high) << " for " << low;
    ASSERT_GE(shown_high, high * (1 - 1e-9)) << io::interval(low, high) << " for " << high;
    ASSERT_LE(high - low > 0 ? shown_high - shown_low : 0, (high - low) + 0.021 * high)
        << io::interval(low, high);
  }
}

// A ratio's interval wholly past 1 is a verdict ("slower"); printed, it must not reach 1.
TEST(Format, IntervalEndsStayOnTheirSideOfTheMark) {
  EXPECT_EQ(io::interval(1.0004, 1.003, 3), "[1, 1.01]");  // no mark: outward only
  EXPECT_EQ(io::interval(1.0004, 1.003, 3, 1.0), "[1.0004, 1.003]");
  EXPECT_EQ(io::interval(0.997, 0.9996, 3, 1.0), "[0.997, 0.9996]");
  EXPECT_EQ(io::interval(99.2, 100.02, 3, 100.0), "[99.2, 101]");
  EXPECT_EQ(io::interval(0.98, 1.02, 3, 1.0), "[0.98, 1.02]");  // holds the mark: as is
}

TEST(Format, ValueIsShownApartFromItsBound) {
  EXPECT_EQ(io::significant_apart(25.3, 25), "25.3");
  EXPECT_EQ(io::significant_apart(25.004, 25), "25.004");
  EXPECT_EQ(io::significant_apart(55.2, 25), "55");
  EXPECT_EQ(io::significant_apart(180.4, 25), "180");  // a quickstart printed "cv 2e+02 % above 25 %"
  EXPECT_EQ(io::significant_apart(2404.2, 25), "2404");
}

}  // namespace
}  // namespace minigpu
