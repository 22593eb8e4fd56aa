/* part_from_kernel_name on real kernel names (cuBLAS, CUTLASS, PyTorch eager, flash) and on
 * this kit's own; part_from_op_name on torch's ops; part_name <-> part_from_name round trips. */
#include <string.h>
#include "check.h"
#include "parts.h"

static const struct { const char *name; Part part; } cases[] = {
    /* the linear layers, whatever library ran them */
    {"ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_tn", P_LINEAR},
    {"turing_fp16_s1688gemm_fp16_128x128_ldg8_f2f_tn", P_LINEAR},
    {"void gemv2T_kernel_val<int, int, __half, __half, float, 128, 16, 2, 2, false, false, "
     "cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<__half const>, "
     "cublasGemvTensorStridedBatched<__half const>, cublasGemvTensorStridedBatched<__half>, float> >"
     "(cublasGemvParamsEx<...>, float, float)", P_LINEAR},
    {"cutlass::Kernel2<cutlass_80_wmma_tensorop_f16_s161616gemm_f16_16x16_128x2_tn_align8>", P_LINEAR},
    {"sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize64x64x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas", P_LINEAR},
    {"void cublasLt::splitKreduce_kernel<32, 16, int, float, __half, float, __half, true, false, false>"
     "(cublasLt::cublasSplitKParams<float>, float const*, __half const*, __half*, float const*, float const*, "
     "__half const*, __half const*, __half*, void*, long, float*, int*)", P_LINEAR},
    /* PyTorch eager */
    {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctorOnSelf_add<c10::Half>, "
     "at::detail::Array<char*, 2> >(int, at::native::CUDAFunctorOnSelf_add<c10::Half>, at::detail::Array<char*, 2>)", P_ELEMENTWISE},
    {"void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::pow_tensor_scalar_kernel_impl"
     "<c10::Half, c10::Half>(at::TensorIteratorBase&, c10::Half)::{lambda(c10::Half)#1}, at::detail::Array<char*, 2> >"
     "(int, ..., at::detail::Array<char*, 2>)", P_NORM},
    {"void at::native::vectorized_elementwise_kernel<4, at::native::silu_kernel(at::TensorIteratorBase&)::"
     "{lambda()#1}::operator()() const::{lambda(c10::Half)#1}, at::detail::Array<char*, 2> >(int, ...)", P_SILU_MUL},
    {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<c10::Half, at::native::MeanOps<float, float, float, float>, "
     "unsigned int, c10::Half, 4> >(at::native::ReduceOp<c10::Half, at::native::MeanOps<float, float, float, float>, "
     "unsigned int, c10::Half, 4>)", P_NORM},
    {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::ArgMaxOps<float>, unsigned int, "
     "long, 4> >(at::native::ReduceOp<float, at::native::ArgMaxOps<float>, unsigned int, long, 4>)", P_ARGMAX},
    {"void at::native::(anonymous namespace)::CatArrayBatchedCopy<c10::Half, unsigned int, 4, 64, 64>"
     "(c10::Half*, at::native::(anonymous namespace)::CatArrInputTensorMetadata<c10::Half, unsigned int, 64, 64>, "
     "at::native::(anonymous namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)", P_KV_APPEND},
    {"void at::native::(anonymous namespace)::indexSelectLargeIndex<c10::Half, long, unsigned int, 2, 2, -2, true>"
     "(at::cuda::detail::TensorInfo<c10::Half, unsigned int>, ...)", P_EMBED},
    {"void (anonymous namespace)::softmax_warp_forward<c10::Half, c10::Half, float, 7, false, false>"
     "(c10::Half*, c10::Half const*, int, int, int, bool const*, int, bool)", P_ATTN},
    /* attention kernels: the CUTLASS inside them must not make them a linear layer */
    {"fmha_cutlassF_f16_aligned_64x64_rf_sm75(PyTorchMemEffAttention::AttentionKernel<cutlass::half_t, "
     "cutlass::arch::Sm75, true, 64, 64, 64, true, true>::Params)", P_ATTN},
    {"void flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, cutlass::half_t, "
     "Flash_kernel_traits<64, 128, 128, 4, cutlass::half_t> >, false, true, false, false, false, true, false, false>"
     "(flash::Flash_fwd_params)", P_ATTN},
    {"flash_fwd_kernel", P_ATTN},
    {"CatArrayBatchedCopy", P_KV_APPEND},
    /* this kit's kernels */
    {"gemv_f16_kernel(__half const*, __half const*, __half*, int, int)", P_LINEAR},
    {"void gemv_f16<4>(__half const*, __half const*, __half*, int, int)", P_LINEAR},
    {"rmsnorm_kernel(__half const*, __half const*, __half*, int, float)", P_NORM},
    {"rope_kernel(__half*, __half*, int, int, int, float)", P_ROPE},
    {"void attn_decode_kernel<64>(__half const*, __half const*, __half const*, __half*, int, int, int)", P_ATTN},
    {"silu_mul_kernel(__half const*, __half*, int)", P_SILU_MUL},
    {"argmax_kernel(float const*, int*, int)", P_ARGMAX},
    {"embed_kernel(int const*, __half const*, __half*, int)", P_EMBED},
    {"kv_append_kernel(__half const*, __half*, int, int)", P_KV_APPEND},
    {"add_kernel(__half*, __half const*, int)", P_RESIDUAL},
    {"residual_add(__half*, __half const*, int)", P_RESIDUAL},
    {"pow2_kernel(__half const*, float*, int)", P_NORM},
    {"mean_kernel(float const*, float*, int)", P_NORM},
    {"rsqrt_kernel(float*, int, float)", P_NORM},
    {"mul_kernel(__half*, __half const*, int)", P_ELEMENTWISE},
    /* names that say nothing */
    {"my_mystery_kernel", P_OTHER},
    {"", P_OTHER},
};

/* The outermost aten ops that launch kernels in transformers' eager Llama decode. */
static const struct { const char *op; Part part; } ops[] = {
    {"aten::linear", P_LINEAR}, {"aten::addmm", P_LINEAR}, {"aten::mm", P_LINEAR},
    {"aten::scaled_dot_product_attention", P_ATTN}, {"aten::_flash_attention_forward", P_ATTN},
    {"aten::matmul", P_ATTN}, {"aten::bmm", P_ATTN}, {"aten::softmax", P_ATTN},
    {"aten::pow", P_NORM}, {"aten::mean", P_NORM}, {"aten::rsqrt", P_NORM}, {"aten::rms_norm", P_NORM},
    {"aten::layer_norm", P_NORM},
    {"aten::mul", P_ELEMENTWISE}, {"aten::add", P_ELEMENTWISE}, {"aten::addcmul", P_ELEMENTWISE},
    {"aten::cat", P_ELEMENTWISE}, {"aten::to", P_ELEMENTWISE},
    {"aten::silu", P_ELEMENTWISE}, {"aten::embedding", P_ELEMENTWISE}, {"", P_ELEMENTWISE},
};

int main(void) {
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        Part p = part_from_op_name(ops[i].op);
        CHECK(p == ops[i].part, "op %s -> %s, want %s", ops[i].op, part_name(p), part_name(ops[i].part));
    }
    CHECK(part_from_op_name(NULL) == P_ELEMENTWISE, "NULL op");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Part p = part_from_kernel_name(cases[i].name);
        CHECK(p == cases[i].part, "%.60s... -> %s, want %s", cases[i].name, part_name(p), part_name(cases[i].part));
    }
    CHECK(part_from_kernel_name(NULL) == P_OTHER, "NULL name");

    int gemms = 0;
    for (int p = 0; p < P_COUNT; p++) {
        CHECK(part_from_name(part_name((Part)p)) == p, "round trip of %s", part_name((Part)p));
        gemms += part_is_gemm((Part)p);
        unsigned char c[3], d[3];
        part_color((Part)p, c);
        for (int q = 0; q < p; q++) {
            part_color((Part)q, d);
            CHECK(memcmp(c, d, 3) != 0, "parts %s and %s share a colour", part_name((Part)p), part_name((Part)q));
        }
    }
    CHECK(gemms == 11, "%d linear-layer parts, want 11 (q k v qkv o gate up gate_up down lm_head linear)", gemms);
    CHECK(part_is_gemm(P_LM_HEAD) && part_is_gemm(P_LINEAR) && !part_is_gemm(P_ATTN) && !part_is_gemm(P_ELEMENTWISE),
          "part_is_gemm");
    CHECK(part_from_name("nope") == -1 && part_from_name(NULL) == -1, "unknown names give -1");
    CHECK(strcmp(part_name(P_GATE_UP), "gate_up") == 0 && strcmp(part_name(P_OTHER), "other") == 0 &&
          strcmp(part_name(P_LINEAR), "linear") == 0, "part names");
    return check_done("test_parts");
}
