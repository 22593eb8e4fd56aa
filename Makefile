# The kit's one Makefile.
#   make all        run the week on this GPU (day07 .. day12 + the answer check) -> results/REPORT.md
#   make test       build every program and run the CPU tests (no GPU needed; what CI runs)
#   make test-gpu   the GPU tests (needs a GPU)
#   make test-gpu-t4  the same on the T4's code path (compute_75 PTX, KIT_GPU=t4), on any newer GPU
#   make fuzz       fuzz the parsers with clang's libFuzzer (FUZZ_SECONDS each, FUZZ_TARGETS)
#   make dayNN      build and run one day;  make model  downloads the real TinyLlama weights
#   make pack       results/ and what made them (MACHINE.txt) as one archive to download
# Variables: ARCH=75 (build for one compute capability), PTX_ONLY=1 (carry compute_$(ARCH) PTX
# alone, for the driver to compile: the T4 test's build), MODEL=dir (weights), SHARED=dir
# (the fixtures folder), DEBUG=1 (synchronize and check after every kernel launch),
# NVEXTRA=... (more nvcc flags, e.g. NVEXTRA=-DGEMV_UNROLL=4 to try a kernel variant).

SHARED    ?= ../shared
BUILD     ?= build
BIN       ?= bin
MODEL_DIR ?= models/TinyLlama-1.1B-Chat-v1.0
# gcc unless CC is given (make CC=clang, or CC in the environment): make's own default CC
# (cc) is already set, so CC ?= gcc would never apply
ifeq ($(origin CC),default)
CC        := gcc
endif
NVCC      ?= nvcc
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(realpath $(shell command -v $(NVCC) 2>/dev/null)))
ifeq ($(CUDA_HOME),)
CUDA_HOME := /usr/local/cuda
endif

# $(call shq,VALUE): VALUE as one shell word, whatever it holds ('a b' -> 'a b', it's -> 'it'\''s').
# Every path a user may pass (SHARED, MODEL, MODEL_DIR, MINE) reaches a recipe through it, so a
# folder with a space in its name is one argument, not two words and a shell error.
shq = '$(subst ','\'',$(1))'

# ARCH: the compute capability of the GPU here, or both sm_75 (T4) and sm_90 (H100/H200)
# when there is none (CI), so every program is known to build for both. The build carries
# SASS for that GPU, never only PTX: a driver older than the toolkit (Colab: driver CUDA 12.4,
# nvcc 12.5) cannot compile the newer toolkit's PTX, and its kernels would not launch.
ARCH ?= $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d '.\r ')
ifeq ($(ARCH),)
GENCODE := -gencode arch=compute_75,code=sm_75 -gencode arch=compute_90,code=sm_90
else ifeq ($(PTX_ONLY),1)
GENCODE := -gencode arch=compute_$(ARCH),code=compute_$(ARCH)
else
GENCODE := -gencode arch=compute_$(ARCH),code=sm_$(ARCH)
endif

CUPTI_LIB := $(firstword $(wildcard $(CUDA_HOME)/extras/CUPTI/lib64) $(CUDA_HOME)/lib64)
CUPTI_INC := $(firstword $(wildcard $(CUDA_HOME)/extras/CUPTI/include) $(CUDA_HOME)/include)
DEBUGDEF  := $(if $(DEBUG),-DKIT_DEBUG=1,)
NPROC     := $(shell nproc 2>/dev/null || echo 2)

CFLAGS   := -std=c11 -O2 -g -Wall -Wextra -Wno-unused-parameter -D_GNU_SOURCE -Icommon $(DEBUGDEF)
NVFLAGS  := -O3 -std=c++17 -lineinfo $(GENCODE) -Icommon -I$(CUPTI_INC) $(DEBUGDEF) \
            -Xcompiler -Wall,-Wno-unused-function -D_GNU_SOURCE $(NVEXTRA)
LDLIBS   := -L$(CUDA_HOME)/lib64 -L$(CUPTI_LIB) -Xlinker -rpath,$(CUDA_HOME)/lib64 \
            -Xlinker -rpath,$(CUPTI_LIB) -lcublas -lcupti -lcudart -lcjson -lstb -lz -lm -ldl -lpthread
HOSTLIBS := -lcjson -lstb -lz -lm
# CUDA_LINK=static: cudart, cuBLAS and CUPTI from their static archives, for a toolkit that
# ships no shared runtime libraries (CI's Debian CUDA 12.4 compile check, .ci/run)
ifeq ($(CUDA_LINK),static)
LDLIBS   := -cudart static -lcublas_static -lcublasLt_static -lcupti_static -lculibos -lcjson -lstb -lz -lm -ldl -lpthread -lrt
endif

# ---- the shared layer: host C in one library, CUDA in another -------------------------
HOST_SRC := $(wildcard common/*.c common/*/*.c)
CUDA_SRC := $(wildcard common/*.cu common/*/*.cu)
HOST_OBJ := $(HOST_SRC:common/%.c=$(BUILD)/host/%.o)
CUDA_OBJ := $(CUDA_SRC:common/%.cu=$(BUILD)/cuda/%.o)
HOST_LIB := $(BUILD)/libkit_host.a
CUDA_LIB := $(BUILD)/libkit_cuda.a
HEADERS  := $(wildcard common/*.h common/*/*.h common/*/*.cuh)

$(BUILD)/host/%.o: common/%.c $(HEADERS) | deps-check
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@
$(BUILD)/cuda/%.o: common/%.cu $(HEADERS) | deps-check
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) -c $< -o $@
$(HOST_LIB): $(HOST_OBJ)
	ar rcs $@ $^
$(CUDA_LIB): $(CUDA_OBJ)
	ar rcs $@ $^
$(BUILD)/tests/cpu $(BUILD)/tests/gpu $(BUILD)/asan $(BIN) results:
	@mkdir -p $@

# ---- programs: tools/ (bin/tinyllama, bin/tokenize) and one per day folder --------------
TOOLS_C  := $(patsubst tools/%.c,$(BIN)/%,$(wildcard tools/*.c))
TOOLS_CU := $(patsubst tools/%.cu,$(BIN)/%,$(wildcard tools/*.cu))
DAY_DIRS := $(sort $(wildcard day[0-9][0-9]_*))
DAY_BINS := $(patsubst %,$(BIN)/%,$(DAY_DIRS))
PROGRAMS := $(TOOLS_C) $(TOOLS_CU) $(DAY_BINS)

$(TOOLS_C): $(BIN)/%: tools/%.c $(HOST_LIB) $(HEADERS) | $(BIN)
	$(CC) $(CFLAGS) $< $(HOST_LIB) $(HOSTLIBS) -o $@
$(TOOLS_CU): $(BIN)/%: tools/%.cu $(CUDA_LIB) $(HOST_LIB) $(HEADERS) | $(BIN)
	$(NVCC) $(NVFLAGS) $< $(CUDA_LIB) $(HOST_LIB) $(LDLIBS) -o $@
.SECONDEXPANSION:
$(DAY_BINS): $(BIN)/%: $$(wildcard $$*/*.cu $$*/*.c) $(CUDA_LIB) $(HOST_LIB) $(HEADERS) | $(BIN)
	$(NVCC) $(NVFLAGS) $(filter %.cu %.c,$^) $(CUDA_LIB) $(HOST_LIB) $(LDLIBS) -o $@

programs: deps-check $(PROGRAMS)

# ---- the kit's version ----------------------------------------------------------------
# tools/version.sh: git describe in a clone, else the VERSION file make dist puts in
# kit.tar.gz. day12 writes it into REPORT.md's first lines (KIT_VERSION); $(BUILD)/kit_version
# holds it and changes only when it does, so day12's report is rebuilt then, and only then.
KIT_VERSION := $(or $(shell tools/version.sh 2>/dev/null),unknown)
VERSION_DEF := -DKIT_VERSION='"$(KIT_VERSION)"'
$(BUILD)/kit_version: FORCE
	@mkdir -p $(@D); [ "$$(cat $@ 2>/dev/null)" = '$(KIT_VERSION)' ] || echo '$(KIT_VERSION)' > $@
FORCE:
$(BIN)/day12_report $(BUILD)/fuzz/obj/day12_report.o: $(BUILD)/kit_version
$(BIN)/day12_report: private NVFLAGS += $(VERSION_DEF)
$(BUILD)/fuzz/obj/day12_report.o: private FUZZ_FLAGS += $(VERSION_DEF)

# ---- tests --------------------------------------------------------------------------
CPU_TESTS := $(patsubst tests/cpu/%.c,$(BUILD)/tests/cpu/%,$(wildcard tests/cpu/*.c))
GPU_TESTS := $(patsubst tests/gpu/%.cu,$(BUILD)/tests/gpu/%,$(wildcard tests/gpu/*.cu))
ASAN_BINS := $(patsubst tests/asan/%.c,$(BUILD)/asan/%,$(wildcard tests/asan/*.c))

$(CPU_TESTS): $(BUILD)/tests/cpu/%: tests/cpu/%.c tests/check.h $(HOST_LIB) $(HEADERS) | $(BUILD)/tests/cpu
	$(CC) $(CFLAGS) -Itests $< $(HOST_LIB) $(HOSTLIBS) -o $@
$(GPU_TESTS): $(BUILD)/tests/gpu/%: tests/gpu/%.cu tests/check.h tests/gpu/kernel_data.cuh $(CUDA_LIB) $(HOST_LIB) $(HEADERS) | $(BUILD)/tests/gpu
	$(NVCC) $(NVFLAGS) -Itests $< $(CUDA_LIB) $(HOST_LIB) $(LDLIBS) -o $@
# the parsers again, under AddressSanitizer, for the bad-input tests
$(ASAN_BINS): $(BUILD)/asan/%: tests/asan/%.c $(HOST_SRC) $(HEADERS) | $(BUILD)/asan
	$(CC) $(CFLAGS) -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -Itests $< $(HOST_SRC) $(HOSTLIBS) -o $@

# ---- fuzzing: libFuzzer targets in tests/fuzz/, built with clang when it is here ----------
# make test runs each over its seeds and tests/fuzz/regress/ (tests/cpu/fuzz.sh); make fuzz
# fuzzes each for FUZZ_SECONDS, FUZZ_JOBS at a time, its corpus kept in $(BUILD)/fuzz/corpus.
FUZZ_CC      ?= clang
FUZZ_TARGETS ?= config safetensors st_index tokenizer tokenize rows claims day12 torch_trace
FUZZ_SECONDS ?= 60
FUZZ_JOBS    ?= $(NPROC)
HAVE_FUZZ    := $(shell f=$$($(FUZZ_CC) -print-file-name=libclang_rt.fuzzer-$$(uname -m).a 2>/dev/null) && [ -f "$$f" ] && echo yes)
FUZZ_FLAGS := -std=c11 -O1 -g -Wall -Wextra -Wno-unused-parameter -D_GNU_SOURCE -Icommon -Iday12_report -Itests/fuzz -fno-omit-frame-pointer \
              -fsanitize=address,undefined -fno-sanitize-recover=undefined
# die() exits: the targets catch exit, and what the call held, through these (tests/fuzz/fuzz.h)
FUZZ_WRAP  := -Wl,--wrap=exit,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free,--wrap=fopen,--wrap=fclose,--wrap=mmap,--wrap=munmap
FUZZ_OBJ   := $(HOST_SRC:common/%.c=$(BUILD)/fuzz/obj/%.o) $(BUILD)/fuzz/obj/day12_report.o $(BUILD)/fuzz/obj/harness.o
FUZZ_LIB   := $(BUILD)/fuzz/libkit_fuzz.a
FUZZ_BINS  := $(FUZZ_TARGETS:%=$(BUILD)/fuzz/bin/%)
FUZZ_SEEDS := $(BUILD)/fuzz/seeds
FUZZ_CCOBJ  = $(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(BUILD)/fuzz/obj/%.o: common/%.c $(HEADERS) | deps-check
	@mkdir -p $(@D)
	$(FUZZ_CCOBJ)
$(BUILD)/fuzz/obj/day12_report.o: day12_report/report.c day12_report/report.h $(HEADERS) | $(BUILD)/fuzz/obj
	$(FUZZ_CCOBJ)
$(BUILD)/fuzz/obj/harness.o: tests/fuzz/harness.c tests/fuzz/fuzz.h $(HEADERS) | $(BUILD)/fuzz/obj
	$(FUZZ_CCOBJ)
$(FUZZ_LIB): $(FUZZ_OBJ)
	ar rcs $@ $^
$(FUZZ_BINS): $(BUILD)/fuzz/bin/%: tests/fuzz/%.c tests/fuzz/fuzz.h $(FUZZ_LIB) | $(BUILD)/fuzz/bin
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer $< $(FUZZ_LIB) $(FUZZ_WRAP) $(HOSTLIBS) -o $@
$(FUZZ_SEEDS): tests/fuzz/seeds.c $(HOST_LIB) $(HEADERS) | $(BUILD)/fuzz/bin
	$(CC) $(CFLAGS) $< $(HOST_LIB) $(HOSTLIBS) -o $@
$(BUILD)/fuzz/obj $(BUILD)/fuzz/bin:
	@mkdir -p $@
fuzz-build: $(if $(HAVE_FUZZ),$(FUZZ_BINS) $(FUZZ_SEEDS))
fuzz: fuzz-build
	@$(if $(HAVE_FUZZ),,echo "make fuzz needs clang with libFuzzer ($(FUZZ_CC)): apt-get install clang libclang-rt-dev"; exit 1;)
	@SHARED=$(call shq,$(SHARED)) BUILD=$(BUILD) KIT_FUZZ_SECONDS=$(FUZZ_SECONDS) KIT_FUZZ_JOBS=$(FUZZ_JOBS) \
	 KIT_FUZZ_TARGETS="$(FUZZ_TARGETS)" tests/cpu/fuzz.sh

test: programs $(CPU_TESTS) $(ASAN_BINS) fuzz-build
	@SHARED=$(call shq,$(SHARED)) BUILD=$(BUILD) BIN=$(BIN) KIT_FUZZ_TARGETS="$(FUZZ_TARGETS)" tests/run.sh cpu
gpu-programs: programs $(GPU_TESTS)
test-gpu: gpu-check gpu-programs
	@SHARED=$(call shq,$(SHARED)) BUILD=$(BUILD) BIN=$(BIN) tests/run.sh gpu
# The T4's code path on the GPU at hand: every kernel built as compute_75 PTX alone (the
# driver compiles it for this GPU, as it would the T4's), in build-t4/, and the host told to
# take a T4's limits (KIT_GPU=t4: no sm_90 paths, 40 SMs, 64 KB of shared memory). Then the
# GPU tests, which run every day, under that switch.
test-gpu-t4: gpu-check
	@$(MAKE) --no-print-directory -j$(NPROC) ARCH=75 PTX_ONLY=1 BUILD=build-t4 BIN=build-t4/bin gpu-programs
	@KIT_GPU=t4 SHARED=$(call shq,$(SHARED)) BUILD=build-t4 BIN=build-t4/bin tests/run.sh gpu

# ---- the week -------------------------------------------------------------------------
# Real weights when `make model` has fetched them, else the synthetic default. (The test is the
# shell's: make's $(wildcard) would split a folder with a space in two.)
MODEL ?= $(if $(shell test -f $(call shq,$(MODEL_DIR)/model.safetensors) && echo y),$(MODEL_DIR),)
MODEL_ARGS := $(if $(MODEL),--model $(call shq,$(MODEL)),)
DAYS := day07 day08 day09 day10 day11

$(DAYS): day%: gpu-check programs | results
	$(BIN)/$(filter day$*_%,$(DAY_DIRS)) $(MODEL_ARGS)
day12 report: programs | results
	$(BIN)/$(filter day12_%,$(DAY_DIRS))
check-answers: programs
	$(BIN)/check_answers answers/claims.tsv results/rows.tsv $(if $(MINE),--mine $(call shq,$(MINE)),)
bench: gpu-check programs | results
	$(BIN)/bench $(MODEL_ARGS)

# Each day's wall time, in its last line and in results/wall_s.tsv (day, seconds), for the
# notebook and README to quote.
all: gpu-check
	@start=$$(date +%s); $(MAKE) --no-print-directory -j$(NPROC) programs || exit 1; \
	mkdir -p results && printf 'day\tseconds\n' > results/wall_s.tsv; walls=; \
	for d in $(DAYS) day12; do t=$$(date +%s); $(MAKE) --no-print-directory $$d || exit 1; \
	  s=$$(( $$(date +%s) - t )); printf '%s\t%s\n' $$d $$s >> results/wall_s.tsv; walls="$$walls$${walls:+, }$$d $$s s"; done; \
	$(MAKE) --no-print-directory check-answers; rc=$$?; \
	echo "make all: $$walls (results/wall_s.tsv)"; \
	echo "make all: $$(( $$(date +%s) - start )) s; the report is results/REPORT.md"; exit $$rc

# The reference run for students without a GPU: the week three times, each row the median
# of the three runs (bin/median_rows), the report and charts made from those medians (the
# gap histograms, timelines and wall times are the last run's), the answer check's verdict
# beside them (a claim that fails is kept as a finding, not hidden) and MACHINE.txt (make
# pack's: the kit's version, the GPU, driver, toolkit). Each run's rows stay in runs/.
# Three things there are not made here and stay across regenerations (REF_KEEP): README.md, the
# run told in words after it; pytorch/, a PyTorch run on the same GPU (tools/torch_decode.py's
# rows and printout; pytorch/README.md says how they are made), whose rows join the medians
# before day12, so the reference report has the kit and PyTorch side by side; and notebook/,
# week2.ipynb as tools/run_notebook.py ran it there, outputs saved.
REF      := answers/reference
REF_KEEP := README.md pytorch notebook
reference: gpu-check
	$(MAKE) --no-print-directory reference-clear
	for i in 1 2 3; do $(MAKE) --no-print-directory all; cp results/rows.tsv $(REF)/runs/rows_$$i.tsv || exit 1; done
	$(BIN)/median_rows results/rows.tsv $(REF)/runs/rows_1.tsv $(REF)/runs/rows_2.tsv $(REF)/runs/rows_3.tsv
	$(MAKE) --no-print-directory reference-pytorch
	$(BIN)/$(filter day12_%,$(DAY_DIRS))
	cp results/REPORT.md results/rows.tsv results/wall_s.tsv results/*.png $(REF)/
	tools/pack.sh --machine > $(REF)/MACHINE.txt
	-$(BIN)/check_answers answers/claims.tsv results/rows.tsv > $(REF)/CHECK.txt
# The prose a student reads (each day's essay, the READMEs, the notebook's markdown): every number quoted from a row
# against every reference run (tools/check_prose.c). After make reference has moved the rows,
# make check-prose FIX=1 requotes the stale ranges; the sentences around them are yours to read.
PROSE := README.md week2.ipynb answers/README.md $(REF)/README.md $(wildcard day*/*.cu) day12_report/report.c
check-prose: $(BIN)/check_prose
	$(BIN)/check_prose $(if $(FIX),--fix,) $(PROSE)
# make reference's two steps around what it keeps (targets of their own, so tests/cpu/makefile.sh
# runs them on a scratch copy): everything of the last reference goes but REF_KEEP; then the
# PyTorch run's rows (day "trace") replace any in results/rows.tsv, or it says they are missing.
reference-clear:
	mkdir -p $(REF) && find $(REF) -mindepth 1 -maxdepth 1 $(foreach k,$(REF_KEEP),! -name $(k)) -exec rm -rf {} +
	mkdir -p $(REF)/runs
reference-pytorch: | results
	@if [ -f $(REF)/pytorch/rows.tsv ]; then \
	  awk -F'\t' '$$1 != "trace"' results/rows.tsv > results/rows.tsv.tmp && \
	  awk -F'\t' '$$1 == "trace"' $(REF)/pytorch/rows.tsv >> results/rows.tsv.tmp && \
	  mv results/rows.tsv.tmp results/rows.tsv && \
	  echo "reference: the PyTorch run's $$(grep -c '^trace' $(REF)/pytorch/rows.tsv) rows from $(REF)/pytorch/rows.tsv"; \
	else echo "reference: no $(REF)/pytorch/rows.tsv, so the report's Your PyTorch run says not run ($(REF)/pytorch/README.md: how to make it)"; fi

# ---- machine set-up -------------------------------------------------------------------
DEPS_PKGS := libstb-dev libcjson-dev zlib1g-dev
deps:
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(DEPS_PKGS)
# Every build starts here: installs the apt packages when root, else names the command.
deps-check:
	@printf '#include <stb/stb_image_write.h>\n#include <cjson/cJSON.h>\n#include <zlib.h>\n' | $(CC) -E -x c - >/dev/null 2>&1 || \
	 { if [ "$$(id -u)" = 0 ]; then echo "installing $(DEPS_PKGS) (make deps)"; $(MAKE) --no-print-directory deps; \
	   else echo "missing $(DEPS_PKGS): run  sudo apt-get install -y $(DEPS_PKGS)"; exit 1; fi; }
gpu-check:
	@nvidia-smi -L >/dev/null 2>&1 || { echo "No NVIDIA GPU is visible here (nvidia-smi -L failed): the days and GPU tests need one; 'make test' runs the CPU tests."; exit 1; }

model:
	tools/get_model.sh $(call shq,$(MODEL_DIR))

# The kit as one archive, for a student to upload to Colab: in a git clone the files git tracks,
# as committed (naming what is not committed), else the folder less its build outputs; and
# VERSION, which the unpacked kit has in place of git.
dist:
	@tools/dist.sh

# results/ and MACHINE.txt (what made them) as results-<version>-<gpu>.tar.gz, to download.
pack:
	@tools/pack.sh

clean:
	rm -rf build build-t4 bin

.PHONY: all programs gpu-programs test test-gpu test-gpu-t4 dist pack deps deps-check gpu-check model clean bench check-answers check-prose \
        reference reference-clear reference-pytorch report $(DAYS) day12 fuzz fuzz-build FORCE
.DEFAULT_GOAL := all
