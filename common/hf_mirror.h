/* hf_mirror: which Hugging Face stack the kit's eager decode step copies, kernel for kernel
 * (gpu/gpu_model.cu, step_eager), said in one place. The reference is the course's fixture
 * trace (../shared/fixtures/torch-trace/trace_hf_eager_b1.json): torch.profiler's record of
 * transformers' eager Llama decode at TinyLlama's shape. Other versions may launch other
 * kernels for the same step, so day12's "Your PyTorch run" names these beside the versions
 * that made the student's own run. */
#ifndef KIT_HF_MIRROR_H
#define KIT_HF_MIRROR_H

#define EAGER_MIRRORS "transformers 5.17 with torch 2.11"

#endif
