#pragma once
// Strict, crash-proof reading of JSON input files: RapidJSON's reader
// building nlohmann trees (nesting bounded, strings checked), and typed
// field access whose failures produce the one-line "FILE: ELEMENT: FIELD …"
// messages users see.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace dnnplace::json_input {

/// For the JSON we write.
using Json = nlohmann::json;

/// Bump allocation for a parsed input document. A workload's tree is tens of
/// thousands of small objects and vectors, all freed together once the
/// workload is built; freed one by one they sat in malloc's fast bins, and
/// the solver's first large allocation paid to merge them (0.1–0.2 ms of the
/// ResNet-50 operator graph's 1.2–1.4 ms first solve). From an arena the tree
/// goes back to the heap as a few large blocks, which later work reuses.
class Arena {
 public:
  Arena() = default;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  void* allocate(std::size_t bytes);
  /// Hands the blocks out again from the start (everything allocated from
  /// the arena must be gone): memory already touched, not fresh pages.
  void reset() {
    inUse_ = 0;
    used_ = 0;
  }
  /// Larger requests bypass the arena (a growing array would leave every
  /// smaller copy behind in it).
  static constexpr std::size_t kLargestRequest = 4096;

 private:
  static constexpr std::size_t kBlockBytes = 64 * 1024;  // below malloc's mmap threshold: reused by later work
  std::vector<std::unique_ptr<std::byte[]>> blocks_;
  std::size_t inUse_ = 0;  ///< blocks handed out from; the last of them is being filled
  std::size_t used_ = 0;   ///< bytes handed out from that block
};

namespace detail {
/// The arena that this thread's input JSON allocates from and frees into,
/// while a document is parsed or destroyed; null otherwise (plain heap).
Arena*& currentArena();
void* allocate(std::size_t bytes);
void deallocate(void* pointer, std::size_t bytes);
}  // namespace detail

template <class T>
struct ArenaAllocator {
  using value_type = T;
  ArenaAllocator() = default;
  template <class U>
  ArenaAllocator(const ArenaAllocator<U>&) {}
  T* allocate(std::size_t n) { return static_cast<T*>(detail::allocate(n * sizeof(T))); }
  void deallocate(T* pointer, std::size_t n) { detail::deallocate(pointer, n * sizeof(T)); }
  template <class U>
  bool operator==(const ArenaAllocator<U>&) const { return true; }
};

/// The JSON we read: nlohmann's, with objects and arrays in an arena.
using InputJson = nlohmann::basic_json<std::map, std::vector, std::string, bool, std::int64_t,
                                       std::uint64_t, double, ArenaAllocator>;

/// Top-level arrays whose elements a parse hands over one at a time instead
/// of keeping them in the tree. A workload's nodes and edges are nearly all
/// of its text: kept whole, BERT-L-12's took 2 MB of fresh pages (its solve
/// took 1,303 page faults, 796 streamed; each costs about 12 us on these VMs).
struct StreamedArrays {
  /// Fields of the top-level object whose array values are streamed.
  std::vector<std::string_view> fields;
  /// fields[f]'s array begins. Called again if the key repeats: as in the
  /// tree, the last occurrence is the one that counts.
  std::function<void(std::size_t f)> start;
  /// The next element of fields[f]'s array (valid only during the call).
  std::function<void(std::size_t f, const InputJson& element)> element;
};

/// A parsed document and the arena it lives in; the tree is destroyed with
/// the arena current, so its frees cost nothing.
class Document {
 public:
  Document(Document&&) = default;
  Document& operator=(Document&&) = delete;
  ~Document();
  const InputJson& operator*() const { return root_; }
  const InputJson* operator->() const { return &root_; }

 private:
  // Only parseDocument builds one: a tree built outside the arena would be
  // dropped, not freed, by ~Document.
  friend std::optional<Document> parseDocument(std::string_view, const std::string&, std::string*,
                                               const StreamedArrays*);
  Document(std::unique_ptr<Arena> arena, InputJson root) : arena_(std::move(arena)), root_(std::move(root)) {}

  std::unique_ptr<Arena> arena_;
  InputJson root_;
};

/// Deeper nesting than this is rejected as it is met: our formats need 4
/// levels, and unbounded nesting would cost memory proportional to its depth.
inline constexpr int kMaxNesting = 64;

/// Parses a document; on failure sets *error to "NAME: …" and returns nullopt.
/// With `streamed`, each streamed array is an empty array in the tree and its
/// elements went to `streamed->element` (a syntax error anywhere still fails
/// the whole parse, after some elements may have been handed over).
std::optional<Document> parseDocument(std::string_view text, const std::string& name,
                                      std::string* error, const StreamedArrays* streamed = nullptr);

/// Shortest text that reads back as the same double.
std::string formatNumber(double value);

/// Makes arbitrary bytes safe to show on one terminal line (escapes control
/// and non-ASCII bytes, shortens long text).
std::string printable(std::string_view text, std::size_t maxLength = 60);

/// Typed access to the fields of one JSON object; errors name file, element
/// (e.g. "node #3 (id 7)", empty for the top level) and field.
class Fields {
 public:
  Fields(const InputJson& object, const std::string& file, std::string element, std::string* error)
      : object_(object), file_(file), element_(std::move(element)), error_(error) {}

  bool isObject();
  bool has(const char* field) const;
  bool number(const char* field, double* out, bool allowNegative = false);
  bool integer(const char* field, std::int64_t* out, bool allowNegative = false);
  /// true/false, or the numbers 0/1 as the paper's files write them.
  bool boolean(const char* field, bool* out);
  /// The field as an array, or nullptr with the error set.
  const InputJson* array(const char* field);

 private:
  const InputJson* require(const char* field);
  bool fail(const char* field, const std::string& what);

  const InputJson& object_;
  const std::string& file_;
  std::string element_;
  std::string* error_;
};

/// A short description of a JSON value for messages: `string "abc"`, `array`, `-1`.
std::string describe(const InputJson& value);

}  // namespace dnnplace::json_input
