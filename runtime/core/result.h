// torchedge/runtime/core/result.h
//
// Result<T>: either a T or an Error (never Error::Ok), without exceptions.
// Use ok() before get(); get() on an error is a bug and aborts in debug.
#pragma once

#include <new>
#include <type_traits>
#include <utility>

#include "runtime/core/error.h"

namespace torchedge {

template <typename T>
class Result final {
 public:
  /* implicit */ Result(const T& value) : has_value_(true) { new (&value_) T(value); }
  /* implicit */ Result(T&& value) : has_value_(true) { new (&value_) T(std::move(value)); }
  /// `error` must not be Error::Ok (it is turned into Error::Internal).
  /* implicit */ Result(Error error)
      : error_(error == Error::Ok ? Error::Internal : error), has_value_(false) {}

  Result(Result&& other) noexcept : has_value_(other.has_value_) {
    if (has_value_) {
      new (&value_) T(std::move(other.value_));
    } else {
      error_ = other.error_;
    }
  }
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;
  Result& operator=(Result&& other) noexcept {
    if (this != &other) {
      this->~Result();
      new (this) Result(std::move(other));
    }
    return *this;
  }

  ~Result() {
    if (has_value_) value_.~T();
  }

  bool ok() const { return has_value_; }
  Error error() const { return has_value_ ? Error::Ok : error_; }

  T& get() { return value_; }
  const T& get() const { return value_; }
  T& operator*() { return value_; }
  T* operator->() { return &value_; }
  const T* operator->() const { return &value_; }

 private:
  union {
    T value_;
    Error error_;
  };
  bool has_value_;
};

}  // namespace torchedge
