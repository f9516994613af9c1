#pragma once
/// The pieces of the `dnnplace._core` extension module, each in its own
/// source file under python/src/, registered by module.cpp.

#include <pybind11/pybind11.h>

namespace dnnplace::python {

/// Binds the C++ cost model that builds a Workload from an operator graph
/// (python/src/cost_model.cpp).
void bindCostModel(pybind11::module_& m);

}  // namespace dnnplace::python
