#include "dnnplace/generator.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace dnnplace {
namespace {

// The device model behind every generated number (see generator.hpp).
constexpr double kAcceleratorFlopsPerMs = 5e9;  // 5 TFLOP/s
constexpr double kAcceleratorBytesPerMs = 5e8;  // 500 GB/s device memory
constexpr double kCpuSlowdown = 10;             // one core vs one accelerator
constexpr double kLinkBytesPerMs = 12e6;        // 12 GB/s host link
constexpr double kLaunchOverheadMs = 0.005;
constexpr double kFloatBytes = 4;

/// SplitMix64: tiny, fast and identical on every platform, unlike the
/// standard distributions whose output is implementation-defined.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  double between(double low, double high) { return low + (high - low) * uniform(); }
  /// The ±20% profiling noise applied to every latency.
  double jitter(double value) { return value * between(0.8, 1.2); }

 private:
  std::uint64_t state_;
};

/// Accumulates a forward graph; training twins and the final Workload are
/// derived from it in `finish`.
class GraphBuilder {
 public:
  explicit GraphBuilder(std::uint64_t seed) : rng(seed) {}

  Rng rng;

  /// A compute operator doing `flops` of dense math over `bytesTouched` of
  /// memory, producing `outputBytes`; `workspaceBytes` is what it keeps on the
  /// accelerator besides its weights (those are separate leaf nodes).
  int compute(std::string name, double flops, double bytesTouched, double outputBytes,
              double workspaceBytes) {
    double accelerator = kLaunchOverheadMs + flops / kAcceleratorFlopsPerMs +
                         bytesTouched / kAcceleratorBytesPerMs;
    // Two statements: the order of draws must not depend on the compiler's
    // choice of argument evaluation order.
    const double acceleratorMs = rng.jitter(accelerator);
    const double cpuMs = rng.jitter(accelerator * kCpuSlowdown);
    return add(std::move(name), acceleratorMs, cpuMs, workspaceBytes, outputBytes,
               /*isCompute=*/true);
  }
  /// Elementwise operator (norm, activation, add) over `elements` floats.
  int elementwise(std::string name, double elements, double flopsPerElement = 1) {
    double bytes = elements * kFloatBytes;
    return compute(std::move(name), elements * flopsPerElement, 2 * bytes, bytes, bytes);
  }
  /// A zero-work leaf: a parameter tensor (or model input) that only has a
  /// size and an output to send, like the paper's operator graphs.
  int leaf(std::string name, double bytes) {
    return add(std::move(name), 0, 0, bytes, bytes, /*isCompute=*/false);
  }
  /// A dense operator together with its weight leaf; returns the operator.
  int withWeights(int op, double weightBytes) {
    connect(leaf(ops_[op].name + ".weight", weightBytes), op);
    return op;
  }

  void connect(int from, int to) { edges_.emplace_back(from, to); }

  Workload finish(const GeneratorOptions& options) {
    markUnsupported(options.unsupportedFraction);
    if (options.training) addBackwardTwins();
    std::vector<Node> nodes;
    nodes.reserve(ops_.size());
    for (std::size_t i = 0; i < ops_.size(); ++i) {
      const Op& op = ops_[i];
      Node node;
      node.name = op.name;
      node.id = static_cast<std::int64_t>(i);
      node.supportedOnFpga = op.supported;
      node.cpuLatency = op.cpuMs;
      node.fpgaLatency = op.acceleratorMs;
      node.isBackward = op.backward;
      node.colorClass = op.colorClass;
      node.size = op.sizeBytes;
      nodes.push_back(node);
    }
    std::vector<RawEdge> edges;
    edges.reserve(edges_.size());
    for (auto [from, to] : edges_) {
      edges.push_back({static_cast<std::int64_t>(from), static_cast<std::int64_t>(to),
                       ops_[from].outputBytes / kLinkBytesPerMs});
    }
    Machine machine{options.memoryPerAccelerator, options.accelerators, options.cpus};
    std::string error;
    auto workload = buildWorkload(shapeLabel(options), machine, std::move(nodes), edges, &error);
    // The builder only makes valid graphs; failing here is a bug in this file.
    if (!workload) throw std::logic_error("generator built an invalid workload: " + error);
    return std::move(*workload);
  }

  int size() const { return static_cast<int>(ops_.size()); }

 private:
  struct Op {
    std::string name;
    double acceleratorMs = 0;
    double cpuMs = 0;
    double sizeBytes = 0;
    double outputBytes = 0;  // what its outgoing edges carry
    bool isCompute = true;
    bool supported = true;
    bool backward = false;
    std::int64_t colorClass = 0;
  };

  int add(std::string name, double acceleratorMs, double cpuMs, double sizeBytes, double outputBytes,
          bool isCompute) {
    int index = size();
    Op op;
    op.name = std::move(name);
    op.acceleratorMs = acceleratorMs;
    op.cpuMs = cpuMs;
    op.sizeBytes = std::round(sizeBytes);
    op.outputBytes = std::round(outputBytes);
    op.isCompute = isCompute;
    op.colorClass = index;
    ops_.push_back(op);
    return index;
  }

  void markUnsupported(double fraction) {
    if (fraction <= 0) return;
    for (Op& op : ops_) {
      if (op.isCompute && rng.uniform() < fraction) op.supported = false;
    }
  }

  /// Training: every forward node v gets a backward twin v' in its color
  /// class, twice as slow; a forward edge u→v becomes v'→u' carrying the
  /// gradient of u's output (a source sends the largest such gradient, since
  /// all edges of one source cost the same); the last forward node (the loss)
  /// feeds its own twin.
  void addBackwardTwins() {
    int forwardCount = size();
    std::vector<double> gradientBytes(forwardCount, 0);
    for (auto [from, to] : edges_) {
      gradientBytes[to] = std::max(gradientBytes[to], ops_[from].outputBytes);
    }
    for (int v = 0; v < forwardCount; ++v) {
      Op twin = ops_[v];
      twin.acceleratorMs = rng.jitter(2 * ops_[v].acceleratorMs);
      twin.cpuMs = rng.jitter(2 * ops_[v].cpuMs);
      twin.outputBytes = gradientBytes[v];
      twin.name += ".grad";
      twin.backward = true;
      twin.colorClass = ops_[v].colorClass;
      ops_.push_back(twin);
    }
    std::size_t forwardEdges = edges_.size();
    for (std::size_t e = 0; e < forwardEdges; ++e) {
      auto [from, to] = edges_[e];
      connect(forwardCount + to, forwardCount + from);
    }
    int loss = forwardCount - 1;
    connect(loss, forwardCount + loss);
  }

  static std::string shapeLabel(const GeneratorOptions& options) {
    const char* shape = "chain";
    switch (options.shape) {
      case GraphShape::Chain: shape = "chain"; break;
      case GraphShape::Transformer: shape = "transformer"; break;
      case GraphShape::Cnn: shape = "cnn"; break;
      case GraphShape::SeriesParallel: shape = "series-parallel"; break;
    }
    return std::string("generated ") + shape + (options.training ? " training" : " inference");
  }

  std::vector<Op> ops_;
  std::vector<std::pair<int, int>> edges_;
};

/// Layers of varying width, each carrying its weights in its own size
/// (like the paper's layer graphs).
void buildChain(GraphBuilder& g, const GeneratorOptions& options) {
  const double batch = 64;
  double features = 1024;
  int previous = -1;
  for (int layer = 0; layer < options.blocks; ++layer) {
    double next = std::round(g.rng.between(256, 4096));
    double weights = features * next * kFloatBytes;
    double output = batch * next * kFloatBytes;
    int op = g.compute("layer" + std::to_string(layer), 2 * batch * features * next, weights + output,
                       output, weights + output);
    if (previous >= 0) g.connect(previous, op);
    previous = op;
    features = next;
  }
  if (options.training) g.connect(previous, g.elementwise("loss", batch * features, 4));
}

/// Pre-norm encoder blocks (BERT-large-like: d=1024, 8 sequences of 512 tokens).
/// Each head's Q/K/V projections are parallel branches.
void buildTransformer(GraphBuilder& g, const GeneratorOptions& options) {
  const double batch = 8, sequence = 512, model = 1024, vocabulary = 30522;
  const double tokens = batch * sequence;
  const int heads = options.width;
  const double headDim = model / heads;
  const double hidden = tokens * model;  // floats in one activation

  int input = g.leaf("tokens", tokens * kFloatBytes);
  int embedding = g.withWeights(g.compute("embedding", 0, 2 * hidden * kFloatBytes,
                                          hidden * kFloatBytes, hidden * kFloatBytes),
                                vocabulary * model * kFloatBytes);
  g.connect(input, embedding);

  auto dense = [&](const std::string& name, int from, double inFeatures, double outFeatures) {
    double output = tokens * outFeatures * kFloatBytes;
    int op = g.withWeights(g.compute(name, 2 * tokens * inFeatures * outFeatures, 2 * output, output,
                                     output),
                           (inFeatures * outFeatures + outFeatures) * kFloatBytes);
    g.connect(from, op);
    return op;
  };
  auto layerNorm = [&](const std::string& name, int from) {
    int op = g.withWeights(g.elementwise(name, hidden, 8), 2 * model * kFloatBytes);
    g.connect(from, op);
    return op;
  };

  int x = embedding;
  for (int block = 0; block < options.blocks; ++block) {
    const std::string prefix = "block" + std::to_string(block) + ".";
    int norm1 = layerNorm(prefix + "norm1", x);
    std::vector<int> headOutputs;
    for (int head = 0; head < heads; ++head) {
      const std::string h = prefix + "head" + std::to_string(head) + ".";
      int q = dense(h + "query", norm1, model, headDim);
      int k = dense(h + "key", norm1, model, headDim);
      int v = dense(h + "value", norm1, model, headDim);
      double scores = batch * sequence * sequence;
      double output = tokens * headDim * kFloatBytes;
      // QKᵀ, softmax and the weighted sum of V.
      int attention = g.compute(h + "attention", 4 * scores * headDim + 5 * scores,
                                2 * scores * kFloatBytes + 4 * output, output, scores * kFloatBytes);
      g.connect(q, attention);
      g.connect(k, attention);
      g.connect(v, attention);
      headOutputs.push_back(attention);
    }
    int concat = g.elementwise(prefix + "concat", hidden, 0);
    for (int attention : headOutputs) g.connect(attention, concat);
    int projected = dense(prefix + "attention_output", concat, model, model);
    int residual1 = g.elementwise(prefix + "residual1", hidden);
    g.connect(projected, residual1);
    g.connect(x, residual1);
    int norm2 = layerNorm(prefix + "norm2", residual1);
    int up = dense(prefix + "mlp_up", norm2, model, 4 * model);
    int gelu = g.elementwise(prefix + "gelu", 4 * hidden, 8);
    g.connect(up, gelu);
    int down = dense(prefix + "mlp_down", gelu, 4 * model, model);
    int residual2 = g.elementwise(prefix + "residual2", hidden);
    g.connect(down, residual2);
    g.connect(residual1, residual2);
    x = residual2;
  }
  int head = dense("pooler", layerNorm("final_norm", x), model, model);
  if (options.training) g.connect(head, g.elementwise("loss", hidden, 4));
}

/// ResNet-18-like: a stem, `blocks` basic residual blocks over four stages
/// (64..512 channels), the first block of each later stage downsampling with
/// a 1x1 projection shortcut, then pooling and a classifier.
void buildCnn(GraphBuilder& g, const GeneratorOptions& options) {
  const double batch = 32, classes = 1000;

  auto conv = [&](const std::string& name, int from, double inChannels, double outChannels,
                  double kernel, double outSide) {
    double output = batch * outChannels * outSide * outSide * kFloatBytes;
    double flops = 2 * batch * outSide * outSide * outChannels * inChannels * kernel * kernel;
    int op = g.withWeights(g.compute(name, flops, 2 * output, output, output),
                           outChannels * inChannels * kernel * kernel * kFloatBytes);
    g.connect(from, op);
    return op;
  };
  auto batchNorm = [&](const std::string& name, int from, double channels, double side) {
    int op = g.withWeights(g.elementwise(name, batch * channels * side * side, 4),
                           4 * channels * kFloatBytes);
    g.connect(from, op);
    return op;
  };
  auto relu = [&](const std::string& name, int from, double channels, double side) {
    int op = g.elementwise(name, batch * channels * side * side);
    g.connect(from, op);
    return op;
  };

  int image = g.leaf("images", batch * 3 * 224 * 224 * kFloatBytes);
  int x = relu("stem.relu", batchNorm("stem.bn", conv("stem.conv", image, 3, 64, 7, 112), 64, 112), 64,
               112);
  int pool = g.elementwise("stem.maxpool", batch * 64 * 56 * 56, 9);
  g.connect(x, pool);
  x = pool;

  double channels = 64, side = 56;
  int stage = 0;
  for (int block = 0; block < options.blocks; ++block) {
    const std::string prefix = "block" + std::to_string(block) + ".";
    int blockStage = std::min(3, block * 4 / options.blocks);
    bool downsample = blockStage != stage;
    double outChannels = downsample ? 2 * channels : channels;
    double outSide = downsample ? side / 2 : side;
    stage = blockStage;

    int main = conv(prefix + "conv1", x, channels, outChannels, 3, outSide);
    main = relu(prefix + "relu1", batchNorm(prefix + "bn1", main, outChannels, outSide), outChannels,
                outSide);
    main = batchNorm(prefix + "bn2", conv(prefix + "conv2", main, outChannels, outChannels, 3, outSide),
                     outChannels, outSide);
    int shortcut = x;
    if (downsample) {
      shortcut = batchNorm(prefix + "shortcut_bn",
                           conv(prefix + "shortcut_conv", x, channels, outChannels, 1, outSide),
                           outChannels, outSide);
    }
    int sum = g.elementwise(prefix + "add", batch * outChannels * outSide * outSide);
    g.connect(main, sum);
    g.connect(shortcut, sum);
    x = relu(prefix + "relu2", sum, outChannels, outSide);
    channels = outChannels;
    side = outSide;
  }
  int average = g.elementwise("avgpool", batch * channels * side * side);
  g.connect(x, average);
  double output = batch * classes * kFloatBytes;
  int classifier =
      g.withWeights(g.compute("fc", 2 * batch * channels * classes, 2 * output, output, output),
                    (channels * classes + classes) * kFloatBytes);
  g.connect(average, classifier);
  if (options.training) g.connect(classifier, g.elementwise("loss", batch * classes, 4));
}

/// Blocks of `width` independent chains of `chainLength` layers between a
/// fork and a join: many ideals from few nodes.
void buildSeriesParallel(GraphBuilder& g, const GeneratorOptions& options) {
  const double batch = 64;
  auto layer = [&](const std::string& name) {
    double features = std::round(g.rng.between(256, 2048));
    double output = batch * features * kFloatBytes;
    double weights = features * features * kFloatBytes;
    return g.compute(name, 2 * batch * features * features, weights + output, output, weights + output);
  };
  int x = layer("input_layer");
  for (int block = 0; block < options.blocks; ++block) {
    const std::string prefix = "block" + std::to_string(block) + ".";
    std::vector<int> tails;
    for (int branch = 0; branch < options.width; ++branch) {
      int previous = x;
      for (int i = 0; i < options.chainLength; ++i) {
        int op = layer(prefix + "branch" + std::to_string(branch) + ".layer" + std::to_string(i));
        g.connect(previous, op);
        previous = op;
      }
      tails.push_back(previous);
    }
    int join = layer(prefix + "join");
    for (int tail : tails) g.connect(tail, join);
    x = join;
  }
  if (options.training) g.connect(x, layer("loss"));
}

/// Forward nodes `options` asks for, to refuse absurd sizes before allocating.
double estimatedForwardNodes(const GeneratorOptions& options) {
  double blocks = options.blocks, width = options.width;
  switch (options.shape) {
    case GraphShape::Chain: return blocks + 1;
    case GraphShape::Transformer: return blocks * (7 * width + 15) + 8;
    case GraphShape::Cnn: return blocks * 15 + 12;
    case GraphShape::SeriesParallel: return blocks * (width * options.chainLength + 1) + 2;
  }
  return 0;
}

}  // namespace

bool validGeneratorOptions(const GeneratorOptions& options, std::string* error) {
  auto fail = [&](const std::string& message) {
    if (error) *error = message;
    return false;
  };
  if (options.blocks < 1) return fail("blocks must be >= 1, got " + std::to_string(options.blocks));
  if (options.width < 1) return fail("width must be >= 1, got " + std::to_string(options.width));
  if (options.chainLength < 1)
    return fail("chain length must be >= 1, got " + std::to_string(options.chainLength));
  if (options.accelerators < 0)
    return fail("accelerators must be >= 0, got " + std::to_string(options.accelerators));
  if (options.cpus < 0) return fail("cpus must be >= 0, got " + std::to_string(options.cpus));
  if (!(options.memoryPerAccelerator >= 0) || !std::isfinite(options.memoryPerAccelerator))
    return fail("memory per accelerator must be a finite number >= 0");
  if (!(options.unsupportedFraction >= 0 && options.unsupportedFraction <= 1))
    return fail("unsupported fraction must be in [0, 1]");
  if (estimatedForwardNodes(options) > kMaxGeneratedNodes)
    return fail("the requested graph would have more than " +
                std::to_string(static_cast<long long>(kMaxGeneratedNodes)) + " forward nodes");
  return true;
}

Workload generateWorkload(const GeneratorOptions& options) {
  std::string error;
  if (!validGeneratorOptions(options, &error)) throw std::invalid_argument(error);
  GraphBuilder graph(options.seed);
  switch (options.shape) {
    case GraphShape::Chain: buildChain(graph, options); break;
    case GraphShape::Transformer: buildTransformer(graph, options); break;
    case GraphShape::Cnn: buildCnn(graph, options); break;
    case GraphShape::SeriesParallel: buildSeriesParallel(graph, options); break;
  }
  return graph.finish(options);
}

bool parseGraphShape(const std::string& text, GraphShape* shape) {
  static const std::pair<const char*, GraphShape> kNames[] = {
      {"chain", GraphShape::Chain},
      {"transformer", GraphShape::Transformer},
      {"cnn", GraphShape::Cnn},
      {"series-parallel", GraphShape::SeriesParallel},
  };
  for (const auto& [name, value] : kNames) {
    if (text == name) {
      *shape = value;
      return true;
    }
  }
  return false;
}

}  // namespace dnnplace
