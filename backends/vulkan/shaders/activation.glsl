// Pointwise functions: the unary shader's operators, also fused into
// matmul and conv2d outputs. Codes match backends/vulkan/blob_format.h
// (UnaryOp) and python/torchedge/backends/vulkan/blob_writer.py.
const float kSqrtHalf = 0.70710678118654752;
const float kSqrt2OverPi = 0.79788456080286536;

// erf with |error| < 1.5e-7 (Abramowitz-Stegun 7.1.26): GLSL has no erf.
float erf_approx(float x) {
  float s = sign(x);
  float a = abs(x);
  float t = 1.0 / (1.0 + 0.3275911 * a);
  float y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t +
                   0.254829592) * t * exp(-a * a);
  return s * y;
}

float stable_tanh(float x) {
  // GLSL's tanh may overflow exp() for |x| > ~44 on some drivers.
  float e = exp(-2.0 * abs(x));
  return sign(x) * (1.0 - e) / (1.0 + e);
}

float sigmoid(float x) {
  return x >= 0.0 ? 1.0 / (1.0 + exp(-x)) : exp(x) / (1.0 + exp(x));
}

// x^a with PyTorch's meaning for negative x and integer a (GLSL's pow is
// undefined for x < 0).
float pow_scalar(float x, float a) {
  float r = pow(abs(x), a);
  if (x < 0.0) {
    if (a != floor(a)) return uintBitsToFloat(0x7fc00000u);  // NaN, as PyTorch
    if (mod(a, 2.0) != 0.0) r = -r;
  }
  return r;
}

float activate(uint op, float x, float a, float b) {
  switch (op) {
    case 0u: return x;                                   // none
    case 1u: return max(x, 0.0);                         // relu
    case 2u: return clamp(x, a, b);                      // clamp / hardtanh / relu6
    case 3u: return 0.5 * x * (1.0 + erf_approx(x * kSqrtHalf));   // gelu
    case 4u: return 0.5 * x * (1.0 + stable_tanh(kSqrt2OverPi * (x + 0.044715 * x * x * x)));
    case 5u: return sigmoid(x);
    case 6u: return stable_tanh(x);
    case 7u: return x * sigmoid(x);                      // silu
    case 8u: return x * clamp(x + 3.0, 0.0, 6.0) / 6.0;  // hardswish
    case 9u: return clamp(x + 3.0, 0.0, 6.0) / 6.0;      // hardsigmoid
    case 10u: return -x;
    case 11u: return abs(x);
    case 12u: return sqrt(x);
    case 13u: return inversesqrt(x);
    case 14u: return exp(x);
    case 15u: return log(x);
    case 16u: return x * a + b;                          // scalar affine (mul/add/sub/div by scalar)
    case 17u: return x >= 0.0 ? x : x * a;               // leaky relu
    case 18u: return pow_scalar(x, a);
    case 19u: return x * x;
    case 20u: return sin(x);
    case 21u: return cos(x);
    case 22u: return erf_approx(x);
    case 23u: return 1.0 / x;
    default: return x;
  }
}
