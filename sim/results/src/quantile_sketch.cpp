// gpucap: the mergeable quantile sketch (see quantile_sketch.hpp).
#include "gpucap/quantile_sketch.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace gpucap {
namespace {

constexpr int kDroppedBits = kSketchDroppedBits;
constexpr uint64_t kSignBit = uint64_t{1} << 63;

double from_ordered_bits(uint64_t key) {
  const uint64_t bits = (key & kSignBit) ? key & ~kSignBit : ~key;
  double x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

uint32_t octave_of(uint32_t key) { return key >> QuantileSketch::kMantissaBits; }
uint32_t slot_of(uint32_t key) { return key & (QuantileSketch::kBucketsPerOctave - 1); }

/// The midpoint of the bucket's value range (NaN for the bucket of infinity).
double bucket_midpoint(uint32_t key) {
  const uint64_t low = static_cast<uint64_t>(key) << kDroppedBits;
  const uint64_t high = low | ((uint64_t{1} << kDroppedBits) - 1);
  return 0.5 * from_ordered_bits(low) + 0.5 * from_ordered_bits(high);
}

template <typename T>
void put(std::string& out, T v) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &v, sizeof(T));  // little-endian hosts only (static_assert below)
  out.append(bytes, sizeof(T));
}

template <typename T>
T take(const std::string& data, std::size_t& pos) {
  if (data.size() - pos < sizeof(T) || pos > data.size())
    throw std::invalid_argument("quantile sketch: the bytes end early");
  T v;
  std::memcpy(&v, data.data() + pos, sizeof(T));
  pos += sizeof(T);
  return v;
}

}  // namespace

QuantileSketch::QuantileSketch(const QuantileSketch& other) : count_(other.count_) {
  pages_.reserve(other.pages_.size());
  for (const auto& page : other.pages_) pages_.push_back(std::make_unique<Page>(*page));
}

QuantileSketch& QuantileSketch::operator=(const QuantileSketch& other) {
  if (this != &other) {
    QuantileSketch copy(other);
    *this = std::move(copy);
  }
  return *this;
}

QuantileSketch::Page& QuantileSketch::page_of(uint32_t octave) {
  if (last_page_ < pages_.size() && pages_[last_page_]->octave == octave)
    return *pages_[last_page_];
  const auto at = std::lower_bound(
      pages_.begin(), pages_.end(), octave,
      [](const std::unique_ptr<Page>& page, uint32_t o) { return page->octave < o; });
  last_page_ = static_cast<std::size_t>(at - pages_.begin());
  if (at == pages_.end() || (*at)->octave != octave) {
    auto page = std::make_unique<Page>();
    page->octave = octave;
    pages_.insert(at, std::move(page));
  }
  return *pages_[last_page_];
}

void QuantileSketch::add_to_bucket(uint32_t key, uint64_t n, double min, double max) {
  Page& page = page_of(octave_of(key));
  const uint32_t j = slot_of(key);
  if (page.n[j] == 0) {
    page.min[j] = min;
    page.max[j] = max;
  } else {
    // -0 and +0 share no bucket, so < and > decide every pair of values here.
    if (min < page.min[j]) page.min[j] = min;
    if (max > page.max[j]) page.max[j] = max;
  }
  page.n[j] += n;
  count_ += n;
}

void QuantileSketch::add(double x) { add_to_bucket(sketch_bucket_key(x), 1, x, x); }

void QuantileSketch::add_bucket(uint32_t key, uint64_t n, double min, double max) {
  if (n == 0) return;
  if (!(min <= max) || sketch_bucket_key(min) != key || sketch_bucket_key(max) != key)
    throw std::invalid_argument("quantile sketch: values " + std::to_string(min) + " to " +
                                std::to_string(max) + " are not all in bucket " +
                                std::to_string(key));
  add_to_bucket(key, n, min, max);
}

void QuantileSketch::merge(const QuantileSketch& other) {
  for (const auto& page : other.pages_)
    for (uint32_t j = 0; j < static_cast<uint32_t>(kBucketsPerOctave); ++j)
      if (page->n[j] != 0)
        add_to_bucket((page->octave << kMantissaBits) | j, page->n[j], page->min[j], page->max[j]);
}

double QuantileSketch::value_of_rank(uint64_t k) const {
  uint64_t below = 0;  // values in the buckets before the current one
  for (const auto& page : pages_)
    for (uint32_t j = 0; j < static_cast<uint32_t>(kBucketsPerOctave); ++j) {
      const uint64_t n = page->n[j];
      if (n == 0 || below + n <= k) {
        below += n;
        continue;
      }
      const double low = page->min[j], high = page->max[j];
      if (k == 0) return low;            // the smallest value
      if (k == count_ - 1) return high;  // the largest value
      const double mid = bucket_midpoint((page->octave << kMantissaBits) | j);
      if (!(mid >= low)) return low;  // also the NaN midpoint of infinity's bucket
      return mid > high ? high : mid;
    }
  return std::numeric_limits<double>::quiet_NaN();  // k >= count_: not reached
}

double QuantileSketch::quantile(double q) const {
  if (count_ == 0) return std::numeric_limits<double>::quiet_NaN();
  // The same arithmetic as summarize()'s type-7 quantile of the rows.
  const double h = (static_cast<double>(count_) - 1.0) * q;
  const uint64_t lo = static_cast<uint64_t>(std::floor(h));
  const uint64_t hi = std::min(lo + 1, count_ - 1);
  const double low = value_of_rank(lo);
  if (h == static_cast<double>(lo)) return low;  // on an order statistic (an infinite one too)
  const double high = value_of_rank(hi);
  return low + (h - static_cast<double>(lo)) * (high - low);
}

std::size_t QuantileSketch::occupied_buckets() const {
  std::size_t n = 0;
  for (const auto& page : pages_)
    for (const uint64_t c : page->n) n += c != 0;
  return n;
}

std::size_t QuantileSketch::memory_bytes() const {
  return sizeof(*this) + pages_.capacity() * sizeof(pages_[0]) + pages_.size() * sizeof(Page);
}

static_assert(sizeof(double) == 8 && sizeof(uint64_t) == 8, "IEEE-754 binary64");

void QuantileSketch::serialize(std::string& out) const {
  put<uint64_t>(out, occupied_buckets());
  for (const auto& page : pages_)
    for (uint32_t j = 0; j < static_cast<uint32_t>(kBucketsPerOctave); ++j)
      if (page->n[j] != 0) {
        put<uint32_t>(out, (page->octave << kMantissaBits) | j);
        put<uint64_t>(out, page->n[j]);
        put<double>(out, page->min[j]);
        put<double>(out, page->max[j]);
      }
}

QuantileSketch QuantileSketch::deserialize(const std::string& data, std::size_t& pos) {
  constexpr std::size_t kBucketBytes = 4 + 8 + 8 + 8;
  const uint64_t buckets = take<uint64_t>(data, pos);
  if (buckets > (data.size() - pos) / kBucketBytes)
    throw std::invalid_argument("quantile sketch: more buckets than bytes");
  QuantileSketch s;
  int64_t previous = -1;
  for (uint64_t b = 0; b < buckets; ++b) {
    const uint32_t key = take<uint32_t>(data, pos);
    const uint64_t n = take<uint64_t>(data, pos);
    const double min = take<double>(data, pos), max = take<double>(data, pos);
    if (static_cast<int64_t>(key) <= previous || key >> (64 - kDroppedBits) != 0)
      throw std::invalid_argument("quantile sketch: buckets out of order");
    if (n == 0 || n > std::numeric_limits<uint64_t>::max() - s.count_)
      throw std::invalid_argument("quantile sketch: a bucket's count is 0 or too large");
    if (std::isnan(min) || std::isnan(max) || !(min <= max) || sketch_bucket_key(min) != key ||
        sketch_bucket_key(max) != key)
      throw std::invalid_argument("quantile sketch: a bucket's bounds are not in it");
    s.add_to_bucket(key, n, min, max);
    previous = key;
  }
  return s;
}

bool QuantileSketch::operator==(const QuantileSketch& other) const {
  std::string a, b;
  serialize(a);
  other.serialize(b);
  return a == b;
}

}  // namespace gpucap
