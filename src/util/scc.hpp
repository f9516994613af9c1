#pragma once
/// Strongly connected components of a directed graph given by adjacency lists.

#include <vector>

namespace dnnplace {

/// The component of each vertex (iterative Tarjan, no recursion depth limit).
/// Components are numbered in the order Tarjan's algorithm closes them: a
/// reverse topological order of the component graph. Sets *numComponents.
std::vector<int> stronglyConnectedComponents(const std::vector<std::vector<int>>& successors,
                                             int* numComponents);

}  // namespace dnnplace
