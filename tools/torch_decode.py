#!/usr/bin/env python3
"""torch_decode.py: your own PyTorch run of TinyLlama's decode, measured the kit's way.

Hugging Face transformers runs the decode step that the kit's eager mode copies in C. This
script measures that step in PyTorch itself, with the lesson's two instruments, and hands the
numbers to the kit so day12's report shows them beside the kit's ("Your PyTorch run"):

  1. What made the run: the torch and transformers versions and the GPU (torch=, transformers=,
     gpu=), and the weights: TinyLlama-1.1B-Chat from the hub, or --random.
  2. The timer. A 200-token prompt is prefilled, then decode steps are timed WITHOUT the
     profiler, the lesson's bench() way: warm-up steps first, a synchronize before and after
     each timed step, the median of --steps steps (at least 20) with its min and max:
     tpot_ms= is the step as it runs.
  3. The profiler. The same loop under torch.profiler, schedule(wait=1, warmup=2, active=3):
     6 steps, the last 3 recorded, the Chrome trace written to results/hf_trace.json.
  4. The kit reads the trace: bin/trace_stats --rows --tpot-ms <tpot_ms> --label <step 1>
     results/hf_trace.json. It uses day10's and day11's definitions: the busy ratio is the
     trace's kernel time per step divided by step 2's TPOT (never by a traced step, which the
     profiler slowed down), and the tracer's cost is a traced step against that TPOT. Its
     rows go to results/rows.tsv (or $KIT_RESULTS/rows.tsv), for make day12.

One decode step is the loop generate() runs: the model on the last token with the KV cache,
argmax, and .item(), which brings the token to the host (and waits for the GPU).

Run it from the kit's folder, after make programs (it prints key=value lines):
  python3 tools/torch_decode.py                  TinyLlama-1.1B-Chat-v1.0 from the Hugging Face hub
  python3 tools/torch_decode.py --model DIR      the same weights from a folder (make model's)
  python3 tools/torch_decode.py --random         TinyLlama's shape, random fp16 weights: no hub needed;
                                                 every kernel and time as with the real weights
  python3 tools/torch_decode.py --random --config ../shared/fixtures/tinyllama-config/config.json
Needs a CUDA GPU, torch and transformers (Colab has them).
"""
import argparse, os, shlex, statistics, subprocess, sys, time

try:   # missing, --help still works, and the error says what to install
    import torch
    import transformers
    from torch.profiler import profile, schedule, ProfilerActivity
    from transformers import AutoModelForCausalLM, AutoTokenizer, LlamaConfig, LlamaForCausalLM
    MISSING = None
except ImportError as e:
    MISSING = e

KIT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROMPT_TOKENS, WARMUP = 200, 3
# TinyLlama-1.1B-Chat-v1.0's shape, from its config.json on the hub
TINYLLAMA = dict(vocab_size=32000, hidden_size=2048, intermediate_size=5632, num_hidden_layers=22,
                 num_attention_heads=32, num_key_value_heads=4, max_position_embeddings=2048,
                 rms_norm_eps=1e-5, rope_theta=10000.0, tie_word_embeddings=False, hidden_act="silu",
                 bos_token_id=1, eos_token_id=2)


def load(a):
    """The model in fp16 on the GPU, and a 200-token prompt."""
    torch.manual_seed(0)
    if a.random:   # random weights at TinyLlama's shape: the same kernels, bytes and times
        cfg = LlamaConfig.from_json_file(a.config) if a.config else LlamaConfig(**TINYLLAMA)
        with torch.device("cuda"):
            model = LlamaForCausalLM(cfg).half().eval()
        ids = torch.randint(3, cfg.vocab_size, (1, PROMPT_TOKENS), device="cuda")   # clear of <unk> <s> </s>
        ids[0, 0] = cfg.bos_token_id
        return model, ids, "random fp16 weights"
    # transformers 4.56 renamed torch_dtype to dtype; older versions know only torch_dtype
    old = tuple(int(x) for x in transformers.__version__.split(".")[:2]) < (4, 56)
    model = AutoModelForCausalLM.from_pretrained(a.model, **{"torch_dtype" if old else "dtype": torch.float16})
    model = model.cuda().eval()
    tok = AutoTokenizer.from_pretrained(a.model)
    text = "The llama is a domesticated South American camelid. " * 20
    ids = tok(text, return_tensors="pt").input_ids[:, :PROMPT_TOKENS].cuda()
    return model, ids, os.path.basename(a.model.rstrip("/"))


def bench(fn, warmup, iters):
    """The lesson's bench(): warm up, then each sample between two synchronizes, in ms."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(iters):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        samples.append((time.perf_counter() - t0) * 1e3)
    return samples


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="TinyLlama/TinyLlama-1.1B-Chat-v1.0", help="hub name or folder")
    ap.add_argument("--random", action="store_true", help="TinyLlama's shape with random fp16 weights (no hub)")
    ap.add_argument("--config", help="with --random: a config.json for the shape (default: TinyLlama's, built in)")
    ap.add_argument("--steps", type=int, default=30, help="decode steps timed without the profiler (>= 20)")
    ap.add_argument("--trace", default="results/hf_trace.json", help="where the Chrome trace goes")
    a = ap.parse_args()
    if a.steps < 20:
        ap.error(f"--steps {a.steps}: give 20 or more (the median of a few steps is the host's noise)")
    if a.config and not a.random:
        ap.error("--config sets the shape of --random's weights; give --random too")
    if a.config and not os.path.isfile(a.config):
        ap.error(f"--config {a.config}: no such file (give a config.json, e.g. TinyLlama's)")
    if MISSING:
        sys.exit(f"error: {MISSING}: this needs PyTorch and transformers (pip install torch transformers; "
                 "Colab has both)")
    if not torch.cuda.is_available():
        sys.exit("error: torch sees no CUDA GPU (torch.cuda.is_available() is False): on Colab, "
                 "Runtime -> Change runtime type -> T4 GPU")

    gpu = torch.cuda.get_device_name()
    print(f'torch={torch.__version__} transformers={transformers.__version__} cuda={torch.version.cuda} gpu="{gpu}"')
    model, ids, weights = load(a)
    print(f'weights="{weights}" prompt_tokens={ids.shape[1]}', flush=True)

    with torch.no_grad():
        out = model(ids, use_cache=True)                          # prefill the 200-token prompt
        past, nxt = out.past_key_values, out.logits[:, -1:].argmax(-1)

        def decode_step():                                        # one token, as generate() makes it
            nonlocal past, nxt
            out = model(nxt, past_key_values=past, use_cache=True)
            past, nxt = out.past_key_values, out.logits[:, -1:].argmax(-1)
            nxt.item()                                            # the token reaches the host

        # 1. The step as it runs: no profiler anywhere near it.
        ms = bench(decode_step, WARMUP, a.steps)
        tpot = statistics.median(ms)
        print("# the step as it runs, untraced: the median of the synchronized steps, and their range")
        print(f"tpot_ms={tpot:.4f} tpot_min_ms={min(ms):.4f} tpot_max_ms={max(ms):.4f} "
              f"tpot_range_pct={100 * (max(ms) - min(ms)) / tpot:.1f} steps={a.steps} warmup={WARMUP}", flush=True)

        # 2. The same loop under the profiler, the lesson's recipe (README, "Your own PyTorch run").
        os.makedirs(os.path.dirname(a.trace) or ".", exist_ok=True)
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                     schedule=schedule(wait=1, warmup=2, active=3),
                     on_trace_ready=lambda p: p.export_chrome_trace(a.trace)) as prof:
            for _ in range(6):                                    # 1 + 2 + 3 decode steps
                decode_step()
                prof.step()                                       # without it the trace is empty
    print(f"trace={a.trace}", flush=True)

    # 3. The kit reads the trace with day10's and day11's definitions, against the untraced TPOT.
    stats = os.path.join(os.environ.get("BIN") or os.path.join(KIT, "bin"), "trace_stats")
    if not os.access(stats, os.X_OK):
        sys.exit(f"error: {stats} is not built: run make programs, then this again (or bin/trace_stats "
                 f"--rows --tpot-ms {tpot:.4f} {a.trace})")
    label = f"torch {torch.__version__}, transformers {transformers.__version__}, {gpu}, {weights}"[:120]
    cmd = [stats, "--rows", "--tpot-ms", f"{tpot:.4f}", "--label", label, a.trace]
    print("#", shlex.join(cmd), flush=True)
    sys.exit(subprocess.run(cmd).returncode)


if __name__ == "__main__":
    main()
