// The optimized attention-mask kernels (glue_kernels.inc: eq.Scalar,
// where.self, any / all, logical_not) against the portable kernels of the
// same names, at 1 and 2 threads, bit for bit: broadcasts of every kind
// (per-row condition, 0-d fill value, all three operands broadcast), rank 0,
// empty tensors, every reduced dim with and without keepdim, and the
// fallbacks (other dtypes, other dim orders).
#include "kernels/optimized/test/glue_test_support.h"

namespace torchedge {
namespace optimized {
namespace {

// ---- where, any / all, logical_not ----------------------------------------------------

Shape broadcast(const std::vector<Shape>& shapes) {
  size_t rank = 0;
  for (const Shape& s : shapes) rank = std::max(rank, s.size());
  Shape out(rank, 1);
  for (const Shape& s : shapes) {
    for (size_t i = 0; i < s.size(); ++i) {
      int32_t& o = out[rank - s.size() + i];
      if (s[i] != 1) o = s[i];
    }
  }
  return out;
}

GLUE_TEST(WhereBroadcasts) {
  struct Case {
    Shape cond, self, other;
  };
  const Case cases[] = {
      {{}, {}, {}},
      {{0, 3}, {0, 3}, {0, 3}},
      {{13}, {13}, {13}},
      {{1, 3, 197, 1}, {1, 3, 197, 197}, {1, 3, 197, 197}},  // vit: per-row condition
      {{32, 32}, {}, {1, 8, 32, 32}},                        // llama: causal mask, 0-d fill
      {{2, 1, 64}, {2, 12, 64, 64}, {1}},                    // key mask
      {{5, 1, 7}, {1, 6, 1}, {5, 6, 7}},                     // all three broadcast
      {{3, 1}, {1, 4}, {}},
      {{2, 70, 300}, {2, 70, 300}, {2, 70, 300}},            // large: threaded
      {{3, 4}, {3, 5}, {3, 4}},                              // no broadcast: portable's error
  };
  for (const Case& k : cases) {
    Tens cond(ScalarType::Bool, k.cond), self(ScalarType::Float, k.self),
        other(ScalarType::Float, k.other);
    cond.random();
    self.random();
    other.random();
    const Shape out = broadcast({k.cond, k.self, k.other});
    compare("where " + shape_str(k.cond) + shape_str(k.self) + shape_str(k.other), where_self_out,
            native::where_self_out, one_out(ScalarType::Float, out),
            [&](Call& c, std::vector<Tens>& o) {
              c.push(EValue(&cond.t)).push(EValue(&self.t)).push(EValue(&other.t)).push(
                  EValue(&o[0].t));
            });
  }
  // Fallbacks: a double operand (promotion), a reordered operand.
  Tens cond(ScalarType::Bool, {4, 5}), x(ScalarType::Double, {4, 5}), y(ScalarType::Float, {4, 5});
  Tens yr(ScalarType::Float, {4, 5}, {1, 0});
  cond.random();
  x.random();
  y.random();
  yr.random();
  for (Tens* self : {&x, &yr}) {
    const ScalarType dtype = self == &x ? ScalarType::Double : ScalarType::Float;
    compare("where fallback", where_self_out, native::where_self_out, one_out(dtype, {4, 5}),
            [&](Call& c, std::vector<Tens>& o) {
              c.push(EValue(&cond.t)).push(EValue(&self->t)).push(EValue(&y.t)).push(
                  EValue(&o[0].t));
            });
  }
}

GLUE_TEST(AnyAllReductions) {
  struct Input {
    Shape shape;
    std::vector<int> densities;  // 1 in n true: all true / random / mostly false
  };
  const Input inputs[] = {{{7}, {1, 2, 600}},
                          {{4, 0, 5}, {2}},
                          {{3, 5, 7, 9}, {1, 2, 600}},
                          {{1, 3, 197, 197}, {600}},
                          {{64, 300, 9}, {2}}};  // large: threaded
  struct Op {
    const char* name;
    Fn dim_fast, dim_portable, dims_fast, dims_portable, all_fast, all_portable;
  };
  const Op ops[] = {{"any", any_out, native::any_out, any_dims_out, native::any_dims_out,
                     any_all_out, native::any_all_out},
                    {"all", all_dim_out, native::all_dim_out, all_dims_out, native::all_dims_out,
                     all_all_out, native::all_all_out}};
  for (const Input& input : inputs) {
    const Shape& shape = input.shape;
    for (int density : input.densities) {
      Tens self(ScalarType::Bool, shape);
      self.sparse_bools(density);
      const int rank = static_cast<int>(shape.size());
      for (const Op& op : ops) {
        for (int dim = -rank; dim < rank; ++dim) {
          for (bool keepdim : {false, true}) {
            Shape out = shape;
            const size_t d = static_cast<size_t>(dim < 0 ? dim + rank : dim);
            if (keepdim) out[d] = 1; else out.erase(out.begin() + static_cast<long>(d));
            compare(std::string(op.name) + ".dim " + shape_str(shape), op.dim_fast,
                    op.dim_portable, one_out(ScalarType::Bool, out),
                    [&](Call& c, std::vector<Tens>& o) {
                      c.push(EValue(&self.t)).i(dim).b(keepdim).push(EValue(&o[0].t));
                    });
          }
        }
        // dims lists: every dim (None), a block, a scattered pair (portable).
        std::vector<std::vector<int64_t>> lists = {{}, {0}};
        if (rank >= 3) lists.push_back({1, -1});
        if (rank >= 3) lists.push_back({0, 2});
        for (size_t li = 0; li < lists.size(); ++li) {
          const bool none = li == 0;
          Shape out = shape;
          std::vector<int64_t> l = none ? std::vector<int64_t>{} : lists[li];
          for (int32_t& v : out) v = std::max(v, 1);
          compare(std::string(op.name) + ".dims " + shape_str(shape), op.dims_fast,
                  op.dims_portable, one_out(ScalarType::Bool, out),
                  [&](Call& c, std::vector<Tens>& o) {
                    c.push(EValue(&self.t));
                    if (none) c.none(); else c.ints(l);
                    c.b(true).push(EValue(&o[0].t));
                  });
        }
        compare(std::string(op.name) + ".all " + shape_str(shape), op.all_fast, op.all_portable,
                one_out(ScalarType::Bool, {}), [&](Call& c, std::vector<Tens>& o) {
                  c.push(EValue(&self.t)).push(EValue(&o[0].t));
                });
      }
    }
  }
  // Non-bool input and rank 0 go to the portable kernel.
  Tens f(ScalarType::Float, {3, 4}), s(ScalarType::Bool, {});
  f.random();
  s.random();
  compare("any float", any_out, native::any_out, one_out(ScalarType::Bool, {3}),
          [&](Call& c, std::vector<Tens>& o) { c.push(EValue(&f.t)).i(1).b(false).push(EValue(&o[0].t)); });
  compare("any rank 0", any_out, native::any_out, one_out(ScalarType::Bool, {}),
          [&](Call& c, std::vector<Tens>& o) { c.push(EValue(&s.t)).i(0).b(false).push(EValue(&o[0].t)); });
}

GLUE_TEST(EqScalar) {
  for (const Shape& shape : {Shape{}, Shape{0, 4}, Shape{1, 3, 197, 197}, Shape{5, 7, 9}}) {
    for (bool reorder : {false, true}) {
      const std::vector<uint8_t> order = reorder ? reversed_order(shape.size()) : std::vector<uint8_t>{};
      Tens self(ScalarType::Float, shape, order);
      self.random();  // random bits: NaNs and infinities included
      float* x = reinterpret_cast<float*>(self.bytes.data());
      const float specials[] = {-INFINITY, 0.0f, -0.0f, 1.5f, 1.0f, 3.0f};
      for (size_t i = 0; i < self.t.numel(); i += 3) x[i] = specials[(i / 3) % 6];
      // other as Double -inf, Int 0, Double 1.5, Bool true, Int 3.
      for (int which = 0; which < 5; ++which) {
        for (bool same_order : {true, false}) {
          compare("eq.Scalar " + shape_str(shape) + " other " + std::to_string(which), eq_scalar_out,
                  native::eq_scalar_out,
                  one_out(ScalarType::Bool, shape, same_order ? order : std::vector<uint8_t>{}),
                  [&](Call& c, std::vector<Tens>& o) {
                    c.push(EValue(&self.t));
                    if (which == 0) c.d(-INFINITY);
                    if (which == 1) c.i(0);
                    if (which == 2) c.d(1.5);
                    if (which == 3) c.b(true);
                    if (which == 4) c.i(3);
                    c.push(EValue(&o[0].t));
                  });
        }
      }
    }
  }
  Tens d(ScalarType::Double, {4, 5});  // other dtypes: the portable kernel
  d.random();
  compare("eq.Scalar double", eq_scalar_out, native::eq_scalar_out, one_out(ScalarType::Bool, {4, 5}),
          [&](Call& c, std::vector<Tens>& o) { c.push(EValue(&d.t)).d(0.5).push(EValue(&o[0].t)); });
}

GLUE_TEST(LogicalNot) {
  for (const Shape& shape : {Shape{}, Shape{0}, Shape{1, 3, 197, 1}, Shape{5, 7, 9}, Shape{3, 300, 301}}) {
    for (bool reorder : {false, true}) {
      const std::vector<uint8_t> order = reorder ? reversed_order(shape.size()) : std::vector<uint8_t>{};
      for (ScalarType dtype : {ScalarType::Bool, ScalarType::Float}) {
        Tens self(dtype, shape, order);
        self.random();
        // out in self's dim order (fast for bool), and in the default one.
        for (bool same_order : {true, false}) {
          compare("logical_not " + shape_str(shape), logical_not_out, native::logical_not_out,
                  one_out(ScalarType::Bool, shape, same_order ? order : std::vector<uint8_t>{}),
                  [&](Call& c, std::vector<Tens>& o) {
                    c.push(EValue(&self.t)).push(EValue(&o[0].t));
                  });
        }
      }
    }
  }
}

}  // namespace
}  // namespace optimized
}  // namespace torchedge
