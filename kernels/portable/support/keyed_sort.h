// torchedge/kernels/portable/support/keyed_sort.h
//
// Ordering one lane held in two strided arrays, values (T) and their int64
// indices, in place and without scratch memory (sort.values, topk.values).
//
// Entries are ordered by their key (value, index) under KeyOrder: by value,
// ascending or descending, with NaN after every number when ascending and
// before every number when descending (ATen's rule); equal values (-0.0
// equals 0.0) by index. The index breaks every tie, so the order is total
// and any correct sort yields exactly what a stable sort of the lane gives.
// That is what lets heapsort, which needs no buffer, stand in for ATen's
// stable sort.
//
//   KeyedLane<T> lane{values_ptr + start, value_stride, indices_ptr + start, index_stride};
//   ... fill n entries ...;  heap_sort(lane, n, order);
//
//   TopK<T> top(lane, k, order);   // keeps the k entries that come first
//   for (...) top.offer(x, i);
//   top.finish();                  // sorts them, first in order first
#pragma once

#include <cstdint>

#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/elementwise.h"  // is_nan

namespace torchedge {

template <typename C>
struct KeyOrder {
  bool descending = false;

  /// Whether the entry (a, ia) comes before (b, ib).
  bool operator()(C a, int64_t ia, C b, int64_t ib) const {
    const bool a_nan = is_nan(a), b_nan = is_nan(b);
    if (a_nan || b_nan) {
      if (a_nan && b_nan) return ia < ib;
      return descending ? a_nan : b_nan;
    }
    if (a != b) return descending ? b < a : a < b;
    return ia < ib;
  }
};

/// A lane: entry i is (values[i * value_stride], indices[i * index_stride]).
template <typename T>
struct KeyedLane {
  T* values;
  int64_t value_stride;
  int64_t* indices;
  int64_t index_stride;

  compute_t<T> value(int64_t i) const {
    return static_cast<compute_t<T>>(values[i * value_stride]);
  }
  int64_t index(int64_t i) const { return indices[i * index_stride]; }
  void set(int64_t i, T v, int64_t index) const {
    values[i * value_stride] = v;
    indices[i * index_stride] = index;
  }
  void swap(int64_t i, int64_t j) const {
    const T v = values[i * value_stride];
    const int64_t k = indices[i * index_stride];
    set(i, values[j * value_stride], indices[j * index_stride]);
    set(j, v, k);
  }
};

namespace keyed_sort_internal {

// Whether entry i comes after entry j.
template <typename T>
bool later(const KeyedLane<T>& l, const KeyOrder<compute_t<T>>& order, int64_t i, int64_t j) {
  return order(l.value(j), l.index(j), l.value(i), l.index(i));
}

// Restores the heap (the latest entry at the root) below `i` within [0, n).
template <typename T>
void sift_down(const KeyedLane<T>& l, const KeyOrder<compute_t<T>>& order, int64_t i, int64_t n) {
  for (;;) {
    int64_t latest = i;
    const int64_t left = 2 * i + 1, right = left + 1;
    if (left < n && later(l, order, left, latest)) latest = left;
    if (right < n && later(l, order, right, latest)) latest = right;
    if (latest == i) return;
    l.swap(i, latest);
    i = latest;
  }
}

// Moves entry i up while it comes after its parent.
template <typename T>
void sift_up(const KeyedLane<T>& l, const KeyOrder<compute_t<T>>& order, int64_t i) {
  while (i > 0) {
    const int64_t parent = (i - 1) / 2;
    if (!later(l, order, i, parent)) return;
    l.swap(i, parent);
    i = parent;
  }
}

// Turns the heap [0, n) into sorted order, first entry first.
template <typename T>
void drain_heap(const KeyedLane<T>& l, const KeyOrder<compute_t<T>>& order, int64_t n) {
  for (int64_t end = n - 1; end > 0; --end) {
    l.swap(0, end);
    sift_down(l, order, 0, end);
  }
}

}  // namespace keyed_sort_internal

/// Sorts entries [0, n) of `lane` by `order` (heapsort: O(n log n), in place).
template <typename T>
void heap_sort(const KeyedLane<T>& lane, int64_t n, const KeyOrder<compute_t<T>>& order) {
  for (int64_t i = n / 2 - 1; i >= 0; --i) keyed_sort_internal::sift_down(lane, order, i, n);
  keyed_sort_internal::drain_heap(lane, order, n);
}

/// Selects the k entries that come first among those offered, in a lane
/// with room for k entries (a bounded heap: O(n log k), in place).
template <typename T>
class TopK {
 public:
  TopK(const KeyedLane<T>& lane, int64_t k, const KeyOrder<compute_t<T>>& order)
      : lane_(lane), k_(k), order_(order) {}

  void offer(T v, int64_t index) {
    if (count_ < k_) {
      lane_.set(count_, v, index);
      keyed_sort_internal::sift_up(lane_, order_, count_++);
    } else if (k_ > 0 &&
               order_(static_cast<compute_t<T>>(v), index, lane_.value(0), lane_.index(0))) {
      lane_.set(0, v, index);  // replaces the latest of the kept entries
      keyed_sort_internal::sift_down(lane_, order_, 0, k_);
    }
  }

  /// Sorts the kept entries by the order, first entry first.
  void finish() { keyed_sort_internal::drain_heap(lane_, order_, count_); }

 private:
  KeyedLane<T> lane_;
  int64_t k_;
  KeyOrder<compute_t<T>> order_;
  int64_t count_ = 0;
};

}  // namespace torchedge
