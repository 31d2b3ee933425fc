// porter's fallback declarations of the PyTorch C++ surface that CUDA/HIP extensions use (at::Tensor, the
// AT_DISPATCH_* macros, streams, guards, checks). Written for porter, never compiled into anything. They are
// searched after every other include folder (-idirafter), so PyTorch's own headers win whenever they are on the
// include path; this file exists so that host launch code and kernel signatures parse when they are not.
//
// Semantics kept faithful where porter's rules read them:
// - C10_WARP_SIZE is NOT defined here. PyTorch's ROCm definition differs between releases and between the host
//   and device passes, and nothing in a file says which release it is built against:
//     until 2021: 64 for every ROCm device and pass (c10/macros/Macros.h at pytorch 05109496);
//     2021 (pytorch#64302) to 2025: warpSize (Macros.h at pytorch 00a1abb4), a constant until ROCm 7 made it a
//       run-time value, so from ROCm 7 every array bound, constexpr or template argument built from it fails;
//     2025 (pytorch#158271, torch/headeronly/macros/Macros.h at pytorch c0af3789): C10_WARP_SIZE_INTERNAL(), in
//       device code a constexpr 64 on __GFX9__ (else 32), in host code at::cuda::warp_size() at run time, so a
//       host or namespace-scope constant built from it fails on every ROCm; later releases add the
//       C10_WARP_SIZE_UPPER_BOUND / _LOWER_BOUND constants for array bounds (below).
//   Left undeclared, clang reports each use, and porter judges it as a PyTorch macro whose header is not on the
//   include path (porter/fact_queries.py TORCH_WAVE): host uses (W64-011), and uses where C++ needs a constant
//   (W64-010, whose message states the 2021-2025 assumption). -I PyTorch's include folder settles the release.
// - C10_WARP_SIZE_UPPER_BOUND / _LOWER_BOUND exist only in the releases that define them, so code that uses them
//   is built against one: their gfx9 device values, as those releases define them.
// - at::cuda::warp_size() is a host function answered at run time (the device's width), never a constant.
// - AT_DISPATCH_* bind scalar_t to one type of their own list (float for every list that holds it), so each
//   kernel instantiation porter sees is one the real dispatch makes.
#pragma once
#ifndef PORTER_TORCH_H
#define PORTER_TORCH_H

#include <stddef.h>
#include <stdint.h>
#include <initializer_list>
#include <string>
#include <vector>

namespace c10 {

enum class ScalarType : int8_t {
  Byte, Char, Short, Int, Long, Half, Float, Double, ComplexHalf, ComplexFloat, ComplexDouble, Bool,
  QInt8, QUInt8, QInt32, BFloat16, QUInt4x2, QUInt2x4, Bits1x8, Bits2x4, Bits4x2, Bits8, Bits16,
  Float8_e5m2, Float8_e4m3fn, Float8_e5m2fnuz, Float8_e4m3fnuz, UInt16, UInt32, UInt64, Undefined
};
constexpr ScalarType kByte = ScalarType::Byte, kChar = ScalarType::Char, kShort = ScalarType::Short,
    kInt = ScalarType::Int, kLong = ScalarType::Long, kHalf = ScalarType::Half, kFloat = ScalarType::Float,
    kDouble = ScalarType::Double, kBool = ScalarType::Bool, kBFloat16 = ScalarType::BFloat16,
    kFloat16 = ScalarType::Half, kFloat32 = ScalarType::Float, kFloat64 = ScalarType::Double,
    kInt8 = ScalarType::Char, kUInt8 = ScalarType::Byte, kInt16 = ScalarType::Short, kInt32 = ScalarType::Int,
    kInt64 = ScalarType::Long, kFloat8_e4m3fn = ScalarType::Float8_e4m3fn, kFloat8_e5m2 = ScalarType::Float8_e5m2,
    kFloat8_e4m3fnuz = ScalarType::Float8_e4m3fnuz, kFloat8_e5m2fnuz = ScalarType::Float8_e5m2fnuz;
const char* toString(ScalarType);
size_t elementSize(ScalarType);

// c10::Half, c10::BFloat16, the 8-bit floats and c10::complex are NOT declared. A project instantiates its
// launchers explicitly for each of them (`template void fwd<at::Half, float>(...)`), each instantiating every
// kernel variant: declared, they multiply libclang's parse time (several times over on causal-conv1d's and mamba's
// kernels) for instantiations porter reads only a sample of. Left undeclared, those
// instantiations fail as they did before this file existed, and the float ones are analyzed.

template <class T> struct numeric_limits {
  __host__ __device__ static constexpr T lowest();
  __host__ __device__ static constexpr T max();
  __host__ __device__ static constexpr T min();
  __host__ __device__ static constexpr T infinity();
  __host__ __device__ static constexpr T quiet_NaN();
};

// c10::optional (std::optional in recent releases, not included here: <optional> alone costs more to parse than
// all of this file)
struct nullopt_t { constexpr explicit nullopt_t(int) {} };
constexpr nullopt_t nullopt{0};
template <class T> class optional {
 public:
  optional();
  optional(nullopt_t);
  optional(const T&);
  template <class U> optional(const optional<U>&);
  optional& operator=(const T&);
  optional& operator=(nullopt_t);
  bool has_value() const;
  explicit operator bool() const;
  T& value();
  const T& value() const;
  template <class U> T value_or(U&& fallback) const;
  T& operator*();
  const T& operator*() const;
  T* operator->();
  const T* operator->() const;
  void reset();
};
template <class T> optional<T> make_optional(T value);

template <class T> class ArrayRef {
 public:
  ArrayRef();
  ArrayRef(const T&);
  ArrayRef(const T* data, size_t n);
  ArrayRef(std::initializer_list<T>);
  ArrayRef(const std::vector<T>&);
  const T* begin() const;
  const T* end() const;
  const T* data() const;
  size_t size() const;
  bool empty() const;
  const T& operator[](size_t) const;
  std::vector<T> vec() const;
};
using IntArrayRef = ArrayRef<int64_t>;
using IntList = IntArrayRef;

enum class DeviceType : int8_t { CPU, CUDA, HIP = 6, Meta = 9 };
constexpr DeviceType kCPU = DeviceType::CPU, kCUDA = DeviceType::CUDA, kHIP = DeviceType::HIP;
struct Device {
  Device(DeviceType type, int8_t index = -1);
  DeviceType type() const;
  int8_t index() const;
  bool is_cuda() const;
  bool is_cpu() const;
};
enum class Layout : int8_t { Strided, Sparse };
constexpr Layout kStrided = Layout::Strided;
enum class MemoryFormat : int8_t { Contiguous, Preserve, ChannelsLast, ChannelsLast3d };

struct TypeMeta {
  template <class T> static TypeMeta Make();
  ScalarType toScalarType() const;
  size_t itemsize() const;
  const char* name() const;
  operator ScalarType() const;
};
bool operator==(const TypeMeta&, ScalarType);
bool operator!=(const TypeMeta&, ScalarType);

struct TensorOptions {
  TensorOptions();
  TensorOptions(ScalarType);
  TensorOptions(TypeMeta);
  TensorOptions(Device);
  TensorOptions(DeviceType);
  TensorOptions(Layout);
  TensorOptions(MemoryFormat);
  TensorOptions dtype(ScalarType) const;
  TensorOptions dtype(TypeMeta) const;
  template <class T> TensorOptions dtype() const;
  TensorOptions device(Device) const;
  TensorOptions device(DeviceType, int8_t index = -1) const;
  TensorOptions layout(Layout) const;
  TensorOptions requires_grad(bool) const;
  TensorOptions memory_format(MemoryFormat) const;
  TypeMeta dtype() const;
  Device device() const;
};
TensorOptions dtype(ScalarType);
TensorOptions device(Device);
TensorOptions device(DeviceType);
TensorOptions layout(Layout);

// a Scalar holds any number; Tensor::item() gives one
struct Scalar {
  Scalar(double);
  Scalar(int64_t);
  Scalar(int);
  Scalar(float);
  Scalar(bool);
  template <class T> T to() const;
};

struct DataPtr { void* get() const; };

// a borrowed-or-owned tensor (Tensor::expect_contiguous, at::borrow_from_optional_tensor): reads as the tensor
template <class T> class MaybeOwned {
 public:
  const T& operator*() const;
  const T* operator->() const;
};
// what the deprecated Tensor::type() gives, which old extensions pass to AT_DISPATCH_*
struct DeprecatedTypeProperties { ScalarType scalarType() const; };

template <class T> struct DefaultPtrTraits { typedef T* PtrType; };
template <class T> struct RestrictPtrTraits { typedef T* __restrict__ PtrType; };

// Device-side views of a tensor: a[i][j] indexing, sizes and strides.
template <class T, size_t N, template <class U> class PtrTraits = DefaultPtrTraits, class index_t = int64_t>
class TensorAccessor {
 public:
  __host__ __device__ TensorAccessor<T, N - 1, PtrTraits, index_t> operator[](index_t i);
  __host__ __device__ const TensorAccessor<T, N - 1, PtrTraits, index_t> operator[](index_t i) const;
  __host__ __device__ index_t size(index_t d) const;
  __host__ __device__ index_t stride(index_t d) const;
  __host__ __device__ T* data();
  __host__ __device__ const T* data() const;
};
template <class T, template <class U> class PtrTraits, class index_t>
class TensorAccessor<T, 1, PtrTraits, index_t> {
 public:
  __host__ __device__ T& operator[](index_t i);
  __host__ __device__ const T& operator[](index_t i) const;
  __host__ __device__ index_t size(index_t d) const;
  __host__ __device__ index_t stride(index_t d) const;
  __host__ __device__ T* data();
  __host__ __device__ const T* data() const;
};
template <class T, size_t N, template <class U> class PtrTraits = DefaultPtrTraits, class index_t = int64_t>
class GenericPackedTensorAccessor : public TensorAccessor<T, N, PtrTraits, index_t> {};
template <class T, size_t N, template <class U> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor32 = GenericPackedTensorAccessor<T, N, PtrTraits, int32_t>;
template <class T, size_t N, template <class U> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor64 = GenericPackedTensorAccessor<T, N, PtrTraits, int64_t>;
template <class T, size_t N, template <class U> class PtrTraits = DefaultPtrTraits, class index_t = int64_t>
using PackedTensorAccessor = GenericPackedTensorAccessor<T, N, PtrTraits, index_t>;

class Tensor {
 public:
  Tensor();
  int64_t size(int64_t dim) const;
  IntArrayRef sizes() const;
  int64_t stride(int64_t dim) const;
  IntArrayRef strides() const;
  int64_t numel() const;
  int64_t dim() const;
  int64_t ndimension() const;
  int64_t element_size() const;
  int64_t nbytes() const;
  int64_t storage_offset() const;
  ScalarType scalar_type() const;
  TypeMeta dtype() const;
  TensorOptions options() const;
  Device device() const;
  int64_t get_device() const;
  bool is_cuda() const;
  bool is_cpu() const;
  bool defined() const;
  bool requires_grad() const;
  bool is_contiguous(MemoryFormat format = MemoryFormat::Contiguous) const;
  Tensor contiguous(MemoryFormat format = MemoryFormat::Contiguous) const;
  MaybeOwned<Tensor> expect_contiguous(MemoryFormat format = MemoryFormat::Contiguous) const;
  const DeprecatedTypeProperties& type() const;
  void* data_ptr() const;
  template <class T> T* data_ptr() const;
  template <class T> T* data() const;
  const void* const_data_ptr() const;
  template <class T> const T* const_data_ptr() const;
  void* mutable_data_ptr() const;
  template <class T> T* mutable_data_ptr() const;
  template <class T, size_t N> TensorAccessor<T, N> accessor() const;
  template <class T, size_t N, template <class U> class PtrTraits = DefaultPtrTraits, class index_t = int64_t>
  GenericPackedTensorAccessor<T, N, PtrTraits, index_t> packed_accessor() const;
  template <class T, size_t N, template <class U> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor32<T, N, PtrTraits> packed_accessor32() const;
  template <class T, size_t N, template <class U> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor64<T, N, PtrTraits> packed_accessor64() const;
  Scalar item() const;
  template <class T> T item() const;
  Tensor view(IntArrayRef) const;
  Tensor reshape(IntArrayRef) const;
  Tensor flatten(int64_t start = 0, int64_t end = -1) const;
  Tensor transpose(int64_t, int64_t) const;
  Tensor permute(IntArrayRef) const;
  Tensor unsqueeze(int64_t) const;
  Tensor squeeze(int64_t) const;
  Tensor select(int64_t, int64_t) const;
  Tensor slice(int64_t dim = 0, int64_t start = 0, int64_t end = INT64_MAX, int64_t step = 1) const;
  Tensor narrow(int64_t, int64_t, int64_t) const;
  Tensor expand(IntArrayRef) const;
  Tensor to(TensorOptions, bool non_blocking = false, bool copy = false) const;
  Tensor to(ScalarType, bool non_blocking = false, bool copy = false) const;
  Tensor to(Device, ScalarType, bool non_blocking = false, bool copy = false) const;
  Tensor type_as(const Tensor&) const;
  Tensor clone() const;
  Tensor detach() const;
  Tensor float_() const;
  Tensor& copy_(const Tensor&, bool non_blocking = false);
  Tensor& zero_();
  Tensor& fill_(Scalar);
  Tensor& resize_(IntArrayRef);
  Tensor sum(int64_t dim, bool keepdim = false) const;
  Tensor sum() const;
  Tensor operator[](int64_t) const;
  DataPtr storage() const;
};
using TensorList = ArrayRef<Tensor>;

Tensor empty(IntArrayRef size, TensorOptions options = {});
Tensor empty(IntArrayRef size, TensorOptions options, MemoryFormat format);
Tensor empty_like(const Tensor&, TensorOptions options = {});
Tensor empty_strided(IntArrayRef size, IntArrayRef stride, TensorOptions options = {});
Tensor zeros(IntArrayRef size, TensorOptions options = {});
Tensor zeros_like(const Tensor&, TensorOptions options = {});
Tensor ones(IntArrayRef size, TensorOptions options = {});
Tensor ones_like(const Tensor&, TensorOptions options = {});
Tensor full(IntArrayRef size, Scalar value, TensorOptions options = {});
Tensor arange(Scalar end, TensorOptions options = {});
Tensor cat(TensorList, int64_t dim = 0);
Tensor stack(TensorList, int64_t dim = 0);
Tensor from_blob(void* data, IntArrayRef sizes, TensorOptions options = {});
c10::optional<Device> device_of(const Tensor&);
MaybeOwned<Tensor> borrow_from_optional_tensor(const optional<Tensor>&);

namespace detail {
// TORCH_CHECK & co. take the condition and any number of message parts
template <class... Parts> [[noreturn]] void porter_check_failed(const char* condition, const Parts&... parts);
}  // namespace detail

}  // namespace c10

// PyTorch's accumulation type: what a reduction over T accumulates in (float for HIP's 16-bit floats)
namespace at {
using namespace c10;
template <class T, bool is_cuda> struct AccumulateType { using type = T; };
template <bool c> struct AccumulateType<__half, c> { using type = float; };
template <bool c> struct AccumulateType<__hip_bfloat16, c> { using type = float; };
template <bool c> struct AccumulateType<float, c> { using type = float; };
template <bool c> struct AccumulateType<double, c> { using type = double; };
template <bool c> struct AccumulateType<int8_t, c> { using type = int64_t; };
template <bool c> struct AccumulateType<uint8_t, c> { using type = int64_t; };
template <bool c> struct AccumulateType<int16_t, c> { using type = int64_t; };
template <bool c> struct AccumulateType<int32_t, c> { using type = int64_t; };
template <bool c> struct AccumulateType<int64_t, c> { using type = int64_t; };
template <bool c> struct AccumulateType<bool, c> { using type = bool; };
template <class T, bool is_cuda> using acc_type = typename AccumulateType<T, is_cuda>::type;
template <class T> using opmath_type = acc_type<T, true>;

struct Generator {};
struct Context { bool deterministicAlgorithms() const; };
Context& globalContext();

namespace cuda {
// A stream of the current device: converts to the runtime's stream handle, as PyTorch's does.
struct CUDAStream {
  hipStream_t stream() const;
  operator hipStream_t() const;
  int64_t id() const;
  Device device() const;
  int device_index() const;
  void synchronize() const;
};
CUDAStream getCurrentCUDAStream(int8_t device_index = -1);
CUDAStream getDefaultCUDAStream(int8_t device_index = -1);
CUDAStream getStreamFromPool(bool high_priority = false, int8_t device_index = -1);
hipDeviceProp_t* getCurrentDeviceProperties();
hipDeviceProp_t* getDeviceProperties(int64_t device);
int current_device();
int64_t device_count();
// The wavefront width of the current device, asked at run time (64 on gfx942, 32 on RDNA); never a constant.
int warp_size();
struct CUDAGuard { explicit CUDAGuard(int8_t device_index); explicit CUDAGuard(Device device); };
struct OptionalCUDAGuard {
  OptionalCUDAGuard();
  explicit OptionalCUDAGuard(int8_t device_index);
  explicit OptionalCUDAGuard(Device device);
  explicit OptionalCUDAGuard(c10::optional<Device> device);
  void set_index(int8_t);
};
struct CUDAStreamGuard { explicit CUDAStreamGuard(CUDAStream); };
}  // namespace cuda
// torch's hipify spells the same things HIP
namespace hip {
using HIPStream = cuda::CUDAStream;
cuda::CUDAStream getCurrentHIPStream(int8_t device_index = -1);
cuda::CUDAStream getCurrentHIPStreamMasqueradingAsCUDA(int8_t device_index = -1);
using HIPGuard = cuda::CUDAGuard;
using HIPGuardMasqueradingAsCUDA = cuda::CUDAGuard;
using OptionalHIPGuard = cuda::OptionalCUDAGuard;
using OptionalHIPGuardMasqueradingAsCUDA = cuda::OptionalCUDAGuard;
}  // namespace hip
}  // namespace at
namespace c10 {
namespace cuda {
using at::cuda::CUDAStream;
using at::cuda::getCurrentCUDAStream;
using at::cuda::getDefaultCUDAStream;
using at::cuda::getStreamFromPool;
using at::cuda::current_device;
using at::cuda::device_count;
using at::cuda::CUDAGuard;
using at::cuda::OptionalCUDAGuard;
using at::cuda::CUDAStreamGuard;
}  // namespace cuda
namespace hip { using namespace at::hip; }
}  // namespace c10
namespace torch {
using namespace at;
}  // namespace torch

#define TORCH_CHECK(cond, ...) \
  (static_cast<bool>(cond) ? (void)0 : ::c10::detail::porter_check_failed(#cond, ##__VA_ARGS__))
#define TORCH_CHECK_VALUE TORCH_CHECK
#define TORCH_CHECK_TYPE TORCH_CHECK
#define TORCH_CHECK_NOT_IMPLEMENTED TORCH_CHECK
#define TORCH_INTERNAL_ASSERT TORCH_CHECK
#define TORCH_INTERNAL_ASSERT_DEBUG_ONLY TORCH_CHECK
#define AT_ASSERT TORCH_CHECK
#define AT_ASSERTM TORCH_CHECK
#define AT_CHECK TORCH_CHECK
#define AT_ERROR(...) ::c10::detail::porter_check_failed("", ##__VA_ARGS__)
#define TORCH_WARN(...) ((void)0)
#define TORCH_WARN_ONCE(...) ((void)0)
#define AT_CUDA_CHECK(expr) ((void)(expr))
#define C10_CUDA_CHECK(expr) ((void)(expr))
#define C10_HIP_CHECK(expr) ((void)(expr))
#define C10_CUDA_KERNEL_LAUNCH_CHECK() ((void)0)
#define C10_HIP_KERNEL_LAUNCH_CHECK() ((void)0)
#define C10_HOST_DEVICE __host__ __device__
#define C10_DEVICE __device__
#define C10_HOST __host__
#define C10_LAUNCH_BOUNDS_1(max_threads) __launch_bounds__(max_threads)
#define C10_WARP_SIZE_UPPER_BOUND 64
#if defined(__GFX9__)
#define C10_WARP_SIZE_LOWER_BOUND 64
#else
#define C10_WARP_SIZE_LOWER_BOUND 32
#endif
#define C10_LIKELY(x) (x)
#define C10_UNLIKELY(x) (x)
#define C10_RESTRICT __restrict
#define C10_ALWAYS_INLINE inline
#define C10_UNUSED
#define LEGACY_CONTIGUOUS_MEMORY_FORMAT ::c10::MemoryFormat::Contiguous
// PyTorch's ROCm builds leave kernel asserts out unless C10_USE_ROCM_KERNEL_ASSERT (c10/macros/Macros.h)
#define CUDA_KERNEL_ASSERT(cond) ((void)0)
#define CUDA_KERNEL_ASSERT_MSG(cond, msg) ((void)0)
#define TORCH_EXTENSION_NAME porter_extension

// AT_DISPATCH_*: run the lambda with scalar_t bound to one type of the macro's list (float where the list holds
// it): the lambda's body, and the kernel launches in it, are then ordinary code.
#define PORTER_AT_DISPATCH(T, TYPE, ...) \
  [&] { (void)(TYPE); using scalar_t = T; return __VA_ARGS__(); }()
#define AT_DISPATCH_FLOATING_TYPES(TYPE, NAME, ...) PORTER_AT_DISPATCH(float, TYPE, __VA_ARGS__)
#define AT_DISPATCH_FLOATING_TYPES_AND_HALF(TYPE, NAME, ...) PORTER_AT_DISPATCH(float, TYPE, __VA_ARGS__)
#define AT_DISPATCH_FLOATING_TYPES_AND(S1, TYPE, NAME, ...) PORTER_AT_DISPATCH(float, TYPE, __VA_ARGS__)
#define AT_DISPATCH_FLOATING_TYPES_AND2(S1, S2, TYPE, NAME, ...) PORTER_AT_DISPATCH(float, TYPE, __VA_ARGS__)
#define AT_DISPATCH_FLOATING_TYPES_AND3(S1, S2, S3, TYPE, NAME, ...) PORTER_AT_DISPATCH(float, TYPE, __VA_ARGS__)
#define AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES(TYPE, NAME, ...) PORTER_AT_DISPATCH(float, TYPE, __VA_ARGS__)
#define AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(S1, S2, TYPE, NAME, ...) \
  PORTER_AT_DISPATCH(float, TYPE, __VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES(TYPE, NAME, ...) PORTER_AT_DISPATCH(float, TYPE, __VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES_AND(S1, TYPE, NAME, ...) PORTER_AT_DISPATCH(float, TYPE, __VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES_AND2(S1, S2, TYPE, NAME, ...) PORTER_AT_DISPATCH(float, TYPE, __VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES_AND3(S1, S2, S3, TYPE, NAME, ...) PORTER_AT_DISPATCH(float, TYPE, __VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES_AND_HALF(TYPE, NAME, ...) PORTER_AT_DISPATCH(float, TYPE, __VA_ARGS__)
#define AT_DISPATCH_INTEGRAL_TYPES(TYPE, NAME, ...) PORTER_AT_DISPATCH(int32_t, TYPE, __VA_ARGS__)
#define AT_DISPATCH_INTEGRAL_TYPES_AND(S1, TYPE, NAME, ...) PORTER_AT_DISPATCH(int32_t, TYPE, __VA_ARGS__)

// pybind11's module definition, as torch/extension.h brings it
namespace pybind11 {
struct arg { explicit arg(const char*); template <class T> arg& operator=(const T&); };
struct module_ {
  template <class F, class... Extra> module_& def(const char* name, F&& f, const Extra&... extra);
};
using module = module_;
}  // namespace pybind11
namespace py = pybind11;
#define PYBIND11_MODULE(name, variable) void porter_pybind11_module_##name(::pybind11::module_& variable)
#define TORCH_LIBRARY(ns, m) void porter_torch_library_##ns(::pybind11::module_& m)
#define TORCH_LIBRARY_IMPL(ns, k, m) void porter_torch_library_impl_##ns##_##k(::pybind11::module_& m)

#endif  // PORTER_TORCH_H
