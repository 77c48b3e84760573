// The optimized copy kernels (glue_kernels.inc: permute_copy, clone,
// _to_copy, view_copy / _unsafe_view, expand_copy, slice_copy, cat,
// split_with_sizes_copy) against the portable kernels of the same names, at
// 1 and 2 threads. Copies are exact, so results must match bit for bit:
// same error code, same output sizes, same bytes. Shapes include odd sizes,
// size-1 and empty dims and rank 0; inputs come in the default and in other
// dim orders (every permutation of rank-4 tensors, channels-last inputs);
// large cases cross the threading grain so 2 threads really split the work.
#include "kernels/optimized/test/glue_test_support.h"

namespace torchedge {
namespace optimized {
namespace {

const ScalarType kCopyDtypes[] = {ScalarType::Float, ScalarType::Long, ScalarType::Bool,
                                  ScalarType::Half};

// ---- permute_copy ---------------------------------------------------------------

GLUE_TEST(PermuteEveryRank4Permutation) {
  for (const Shape& shape : {Shape{3, 5, 7, 9}, Shape{2, 1, 17, 33}, Shape{1, 3, 64, 197}}) {
    for (ScalarType dtype : kCopyDtypes) {
      if (shape[3] > 100 && dtype != ScalarType::Float) continue;  // the large one: float only
      for (int order_kind = 0; order_kind < 2; ++order_kind) {
        const std::vector<uint8_t> order =
            order_kind == 0 ? std::vector<uint8_t>{} : std::vector<uint8_t>{0, 2, 3, 1};
        Tens self(dtype, shape, order);
        self.random();
        std::vector<int64_t> perm = {0, 1, 2, 3};
        do {
          compare("permute " + shape_str(shape) + " order " + std::to_string(order_kind),
                  permute_copy_out, native::permute_copy_out,
                  one_out(dtype, permuted(shape, perm)), [&](Call& c, std::vector<Tens>& o) {
                    c.push(EValue(&self.t)).ints(perm).push(EValue(&o[0].t));
                  });
        } while (std::next_permutation(perm.begin(), perm.end()));
      }
    }
  }
}

GLUE_TEST(PermuteOtherRanksAndLargeTransposes) {
  struct Case {
    Shape shape;
    std::vector<int64_t> perm;
  };
  const Case cases[] = {
      {{}, {}},                               // rank 0
      {{0, 4, 3}, {2, 0, 1}},                 // empty
      {{7}, {-1}},
      {{13, 11}, {1, 0}},
      {{1, 197, 3, 3, 64}, {2, 0, 3, 1, 4}},  // vit qkv split
      {{2, 12, 64, 32}, {0, 1, 3, 2}},        // K^T, crosses the threading grain
      {{2, 64, 12, 32}, {0, 2, 1, 3}},        // [B,S,H,D] -> [B,H,S,D]
      {{3, 130, 129}, {0, 2, 1}},             // ragged tiles
      {{4, 5, 6, 7, 3}, {4, 3, 2, 1, 0}},
      {{3, 3}, {0, 0}},                       // not a permutation: portable's error
      {{3, 3}, {0, 2}},                       // out of range
  };
  for (const Case& k : cases) {
    for (ScalarType dtype : {ScalarType::Float, ScalarType::Byte}) {
      Tens self(dtype, k.shape);
      self.random();
      Shape out_shape = k.shape;
      bool valid = true;
      for (size_t i = 0; i < k.perm.size(); ++i) {
        const int64_t p = k.perm[i] < 0 ? k.perm[i] + static_cast<int64_t>(k.shape.size()) : k.perm[i];
        if (p < 0 || p >= static_cast<int64_t>(k.shape.size())) valid = false;
        else out_shape[i] = k.shape[static_cast<size_t>(p)];
      }
      if (!valid) out_shape = k.shape;
      compare("permute " + shape_str(k.shape), permute_copy_out, native::permute_copy_out,
              one_out(dtype, out_shape), [&](Call& c, std::vector<Tens>& o) {
                c.push(EValue(&self.t)).ints(k.perm).push(EValue(&o[0].t));
              });
    }
  }
}

GLUE_TEST(PermuteIntoNonDefaultOutFallsBack) {
  Tens self(ScalarType::Float, {3, 4, 5});
  self.random();
  compare("permute out reversed order", permute_copy_out, native::permute_copy_out,
          one_out(ScalarType::Float, {5, 4, 3}, reversed_order(3)),
          [&](Call& c, std::vector<Tens>& o) {
            c.push(EValue(&self.t)).ints({2, 1, 0}).push(EValue(&o[0].t));
          });
}

// ---- clone, _to_copy, view_copy, expand_copy, slice_copy ------------------------------

GLUE_TEST(CloneAndToCopy) {
  for (const Shape& shape : {Shape{}, Shape{0, 3}, Shape{5, 7, 9}, Shape{2, 3, 67, 129}}) {
    for (bool reorder : {false, true}) {
      const std::vector<uint8_t> order = reorder ? reversed_order(shape.size()) : std::vector<uint8_t>{};
      for (ScalarType dtype : kCopyDtypes) {
        Tens self(dtype, shape, order);
        self.random();
        compare("clone " + shape_str(shape), clone_out, native::clone_out, one_out(dtype, shape),
                [&](Call& c, std::vector<Tens>& o) {
                  c.push(EValue(&self.t)).none().push(EValue(&o[0].t));
                });
        compare("clone bad format", clone_out, native::clone_out, one_out(dtype, shape),
                [&](Call& c, std::vector<Tens>& o) {
                  c.push(EValue(&self.t)).i(7).push(EValue(&o[0].t));
                });
        // Same dtype (fast) and a conversion (portable).
        for (ScalarType to : {dtype, ScalarType::Float}) {
          compare("_to_copy " + shape_str(shape), to_copy_out, native::_to_copy_out,
                  one_out(to, shape), [&](Call& c, std::vector<Tens>& o) {
                    c.push(EValue(&self.t)).b(false).i(0).push(EValue(&o[0].t));
                  });
        }
      }
    }
  }
}

GLUE_TEST(ViewCopy) {
  struct Case {
    Shape in;
    std::vector<int64_t> size;
    Shape out;
  };
  const Case cases[] = {
      {{}, {1}, {1}},
      {{2, 0, 3}, {0, -1}, {0, 6}},
      {{1, 197, 576}, {1, 197, 3, 3, 64}, {1, 197, 3, 3, 64}},
      {{8, 64, 129}, {-1, 129}, {512, 129}},  // large: threaded memcpy
      {{6, 7}, {-1, -1}, {6, 7}},             // two -1: portable's error
      {{6, 7}, {5, 8}, {5, 8}},               // wrong count: portable's error
  };
  for (const Case& k : cases) {
    for (bool reorder : {false, true}) {
      for (ScalarType dtype : {ScalarType::Float, ScalarType::Short}) {
        Tens self(dtype, k.in, reorder ? reversed_order(k.in.size()) : std::vector<uint8_t>{});
        self.random();
        for (Fn fast : {view_copy_out, unsafe_view_out}) {
          compare("view " + shape_str(k.in), fast,
                  fast == view_copy_out ? native::view_copy_out : native::_unsafe_view_out,
                  one_out(dtype, k.out), [&](Call& c, std::vector<Tens>& o) {
                    c.push(EValue(&self.t)).ints(k.size).push(EValue(&o[0].t));
                  });
        }
      }
    }
  }
}

GLUE_TEST(ExpandCopy) {
  struct Case {
    Shape in;
    std::vector<int64_t> size;
    Shape out;
  };
  const Case cases[] = {
      {{}, {3, 2}, {3, 2}},
      {{1, 3, 197, 64}, {1, 3, 197, 64}, {1, 3, 197, 64}},  // identity: one memcpy
      {{1, 2, 1, 32, 32}, {1, 2, 4, 32, 32}, {1, 2, 4, 32, 32}},  // GQA repeat
      {{5, 1}, {5, 131}, {5, 131}},                                // inner fill
      {{3, 1, 7}, {-1, 9, -1}, {3, 9, 7}},
      {{7}, {4, 2, 7}, {4, 2, 7}},
      {{1, 5}, {0, 5}, {0, 5}},
      {{2, 3}, {2, 4}, {2, 4}},  // 3 -> 4: portable's error
      {{2, 3}, {3}, {3}},        // too few sizes
  };
  for (const Case& k : cases) {
    for (ScalarType dtype : {ScalarType::Float, ScalarType::Double, ScalarType::Bool}) {
      Tens self(dtype, k.in);
      self.random();
      compare("expand " + shape_str(k.in), expand_copy_out, native::expand_copy_out,
              one_out(dtype, k.out), [&](Call& c, std::vector<Tens>& o) {
                c.push(EValue(&self.t)).ints(k.size).b(false).push(EValue(&o[0].t));
              });
    }
  }
}

GLUE_TEST(SliceCopy) {
  const Shape shape = {3, 1, 3, 197, 64};
  Tens self(ScalarType::Float, shape);
  self.random();
  Tens reordered(ScalarType::Float, {6, 9, 11}, {2, 0, 1});
  reordered.random();
  struct Case {
    Tens* self;
    int64_t dim;
    bool has_start, has_end;
    int64_t start, end, step;
  };
  const Case cases[] = {
      {&self, 0, true, true, 1, 2, 1},     {&self, 0, true, true, 2, 3, 1},
      {&self, -2, true, true, 5, -3, 2},   {&self, 4, false, false, 0, 0, 3},
      {&self, 3, true, true, -500, 500, 7}, {&self, 3, true, true, 9, 4, 1},  // empty
      {&reordered, 1, true, false, 2, 0, 2}, {&reordered, 2, true, true, 1, 10, 4},
      {&self, 0, true, true, 0, 1, 0},     // step 0: portable's error
      {&self, 7, true, true, 0, 1, 1},     // bad dim
  };
  for (const Case& k : cases) {
    compare("slice dim " + std::to_string(k.dim), slice_copy_tensor_out,
            native::slice_copy_tensor_out, one_out(ScalarType::Float, k.self->shape()),
            [&](Call& c, std::vector<Tens>& o) {
              c.push(EValue(&k.self->t)).i(k.dim);
              if (k.has_start) c.i(k.start); else c.none();
              if (k.has_end) c.i(k.end); else c.none();
              c.i(k.step).push(EValue(&o[0].t));
            });
  }
}

// ---- cat, split_with_sizes_copy -------------------------------------------------------

// Tensor-list arguments point into this (a deque keeps them in place).
std::deque<std::vector<Tensor*>>& tensor_lists() {
  static std::deque<std::vector<Tensor*>> lists;
  return lists;
}

Call& push_list(Call& c, std::vector<Tensor*> list) {
  std::vector<Tensor*>& kept = tensor_lists().emplace_back(std::move(list));
  return c.push(EValue(Span<Tensor* const>(kept.data(), kept.size()), false));
}

GLUE_TEST(Cat) {
  struct Case {
    std::vector<Shape> parts;
    int64_t dim;
    Shape out;  // the result, or a bound for the error cases
  };
  const Case cases[] = {
      {{{1, 8, 32, 16}, {1, 8, 32, 16}}, -1, {1, 8, 32, 32}},  // llama rotary halves
      {{{1, 1, 192}, {1, 196, 192}}, 1, {1, 197, 192}},        // vit class token
      {{{3, 5}, {3, 0}, {3, 7}}, 1, {3, 12}},
      {{{7}, {9}}, 0, {16}},
      {{{0}, {5}}, 0, {5}},                                     // legacy empty: portable
      {{{64, 40, 33}, {64, 41, 33}}, 1, {64, 81, 33}},         // large: threaded
      {{{2, 3}, {4, 3}, {1, 3}}, 0, {7, 3}},
      {{{2, 3}, {2, 4}}, 0, {4, 4}},                           // size mismatch: error
      {{{2, 3}, {2, 3}}, 2, {4, 3}},                           // bad dim: error
  };
  for (const Case& k : cases) {
    for (ScalarType dtype : {ScalarType::Float, ScalarType::Char}) {
      std::deque<Tens> parts;
      std::vector<Tensor*> ptrs;
      for (const Shape& s : k.parts) {
        parts.emplace_back(dtype, s).random();
        ptrs.push_back(&parts.back().t);
      }
      compare("cat " + shape_str(k.out), cat_out, native::cat_out, one_out(dtype, k.out),
              [&](Call& c, std::vector<Tens>& o) {
                push_list(c, ptrs).i(k.dim).push(EValue(&o[0].t));
              });
    }
  }
  // A reordered input, and mixed dtypes (converted by the portable kernel).
  Tens a(ScalarType::Float, {4, 5, 6}, {2, 1, 0}), b(ScalarType::Float, {4, 2, 6});
  Tens c8(ScalarType::Char, {4, 1, 6});
  a.random();
  b.random();
  c8.random();
  compare("cat reordered", cat_out, native::cat_out, one_out(ScalarType::Float, {4, 8, 6}),
          [&](Call& c, std::vector<Tens>& o) {
            push_list(c, {&a.t, &b.t, &c8.t}).i(1).push(EValue(&o[0].t));
          });
}

GLUE_TEST(SplitWithSizes) {
  struct Case {
    Shape in;
    std::vector<int64_t> sizes;
    int64_t dim;
  };
  const Case cases[] = {
      {{1, 8, 32, 32}, {16, 16}, -1},
      {{5, 9, 7}, {2, 0, 7}, 1},
      {{64, 81, 33}, {40, 41}, 1},   // large: threaded
      {{11}, {3, 8}, 0},
      {{5, 9}, {2, 8}, 1},           // sums to 10: portable's error
      {{5, 9}, {-1, 10}, 1},         // negative size
  };
  for (const Case& k : cases) {
    for (bool reorder : {false, true}) {
      Tens self(ScalarType::Float, k.in, reorder ? reversed_order(k.in.size()) : std::vector<uint8_t>{});
      self.random();
      const size_t d = static_cast<size_t>(k.dim < 0 ? k.dim + static_cast<int64_t>(k.in.size()) : k.dim);
      auto outs = [&] {
        std::vector<Tens> v;
        for (int64_t s : k.sizes) {
          Shape shape = k.in;
          shape[d] = static_cast<int32_t>(std::max<int64_t>(s, 0));
          v.emplace_back(ScalarType::Float, shape);
        }
        return v;
      };
      compare("split " + shape_str(k.in), split_with_sizes_copy_out,
              native::split_with_sizes_copy_out, outs, [&](Call& c, std::vector<Tens>& o) {
                std::vector<Tensor*> list;
                for (Tens& t : o) list.push_back(&t.t);
                push_list(c.push(EValue(&self.t)).ints(k.sizes).i(k.dim), list);
              });
    }
  }
}

}  // namespace
}  // namespace optimized
}  // namespace torchedge
