#pragma once
/// Number formatting the reports share.

#include <string>

namespace dnnplace::report {

/// One number through a printf pattern, e.g. printed("%.17g", x).
std::string printed(const char* pattern, double value);

/// value with `decimals` digits after the point.
std::string fixed(double value, int decimals = 4);

}  // namespace dnnplace::report
