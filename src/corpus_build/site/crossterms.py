"""The field's terms in Chinese and English, so that a query in one language finds text in the other (issue 37).

The corpus's readers type Chinese for material annotated in English all day (原生稀疏注意力 for
the Native Sparse Attention paper) and the reverse. Each group below lists spellings of one
term, Chinese and English (a Traditional or Taiwanese spelling where folding alone would not
reach it: 運算元 for 算子); the corpus adds its own in `corpus.yaml`:

    search_terms:
      - [稀疏注意力, sparse attention]
      - [昇腾算子, Ascend C operator]

The build folds every spelling as the index folds text (site/hanfold.py: NFKC, lower case,
Traditional to Simplified, Taiwanese terms to mainland ones) and writes the table into the
index's manifest (site/fulltext.py). The search worker (corpus-fulltext.js) looks the query up
in it: an English word or phrase of the table also searches its Chinese spellings, and a Chinese
run is also searched with every table term in it replaced by its English spellings (the rest of
the run then counts where present, but is not required). The same lookup serves the sites' own
entries (sources, pages) and the mirrors' full text.
"""

from __future__ import annotations

from collections.abc import Iterable

from .hanfold import Fold

MAX_FORM = 60  # characters of one spelling: a term, not a sentence

# One group a line: Chinese spellings, then English ones. Kept to the field's terms (GPU kernels,
# compilers, Ascend, LLM training and serving): a general word here would make a query in one
# language match everything in the other.
TERMS: tuple[tuple[str, ...], ...] = (
    ("稀疏注意力", "sparse attention"),
    ("原生稀疏注意力", "native sparse attention"),
    ("注意力", "attention"),
    ("注意力机制", "attention mechanism"),
    ("多头注意力", "multi-head attention"),
    ("多头潜在注意力", "multi-head latent attention"),
    ("分页注意力", "paged attention"),
    ("线性注意力", "linear attention"),
    ("算子", "運算元", "operator", "kernel"),
    ("内核", "核函数", "kernel"),
    ("算子融合", "kernel fusion", "operator fusion"),
    ("流水线并行", "流水并行", "管线并行", "pipeline parallelism", "pipeline parallel"),
    ("张量并行", "tensor parallelism", "tensor parallel"),
    ("数据并行", "data parallelism", "data parallel"),
    ("专家并行", "expert parallelism", "expert parallel"),
    ("序列并行", "sequence parallelism"),
    ("上下文并行", "context parallelism"),
    ("模型并行", "model parallelism"),
    ("双向流水线", "双向流水", "bidirectional pipeline"),
    ("混合专家", "专家混合", "mixture of experts", "moe"),
    ("负载均衡", "load balancing"),
    ("量化", "quantization", "quantized", "quantize"),
    ("低精度", "low precision"),
    ("混合精度", "mixed precision"),
    ("低比特", "low bit"),
    ("浮点", "floating point"),
    ("微基准", "微基准测试", "microbenchmark", "microbenchmarking", "benchmarking"),
    ("基准测试", "benchmark", "benchmarking"),
    ("性能分析", "profiling", "profiler"),
    ("编译器", "compiler"),
    ("编译", "compilation", "compile"),
    ("即时编译", "just in time", "jit"),
    ("自动调优", "autotuning", "auto tuning"),
    ("调度", "scheduling", "schedule"),
    ("张量", "tensor"),
    ("张量核心", "tensor core"),
    ("矩阵乘法", "矩阵乘", "matrix multiplication", "matmul", "gemm"),
    ("卷积", "convolution"),
    ("归约", "规约", "reduction"),
    ("共享内存", "shared memory"),
    ("全局内存", "global memory"),
    ("显存", "device memory", "gpu memory", "hbm"),
    ("内存", "memory"),
    ("寄存器", "register"),
    ("线程块", "thread block"),
    ("线程束", "warp"),
    ("带宽", "bandwidth"),
    ("内存带宽", "memory bandwidth"),
    ("访存", "memory access"),
    ("异步拷贝", "async copy", "asynchronous copy"),
    ("数据搬运", "data movement"),
    ("布局", "layout"),
    ("分块", "tiling"),
    ("流水线", "pipeline", "pipelining"),
    ("软件流水", "software pipelining"),
    ("双缓冲", "double buffering"),
    ("推理", "inference"),
    ("训练", "training"),
    ("训练循环", "training loop"),
    ("预填充", "prefill"),
    ("解码", "decode", "decoding"),
    ("推测解码", "投机解码", "speculative decoding"),
    ("键值缓存", "kv cache"),
    ("连续批处理", "continuous batching"),
    ("大语言模型", "大模型", "large language model", "llm"),
    ("分布式训练", "distributed training"),
    ("集合通信", "collective communication"),
    ("通信", "communication"),
    ("全归约", "all reduce", "allreduce"),
    ("全对全", "all to all", "alltoall"),
    ("昇腾", "ascend"),
    ("英伟达", "輝達", "nvidia"),
    ("华为", "huawei"),
    ("寒武纪", "cambricon"),
    ("摩尔线程", "moore threads"),
    ("计算图", "computation graph", "compute graph"),
    ("图编译", "graph compilation"),
    ("中间表示", "intermediate representation"),
    ("领域特定语言", "domain specific language", "dsl"),
    ("代码生成", "code generation", "codegen"),
    ("多面体", "polyhedral"),
    ("向量化", "vectorization"),
    ("同步", "synchronization"),
    ("屏障", "barrier"),
    ("原子操作", "atomic operation", "atomics"),
    ("编程模型", "programming model"),
    ("编程接口", "programming interface"),
    ("教程", "tutorial"),
    ("论文", "paper"),
    ("源码", "源代码", "source code"),
    ("代码仓库", "repository"),
    ("缓存", "cache"),
    ("延迟", "latency"),
    ("吞吐量", "吞吐", "throughput"),
    ("性能", "performance"),
    ("优化", "optimization"),
    ("架构", "architecture"),
    ("硬件", "hardware"),
    ("加速器", "accelerator"),
    ("微调", "fine tuning", "finetuning"),
    ("参数高效微调", "parameter efficient fine tuning", "peft"),
    ("强化学习", "reinforcement learning"),
    ("位置编码", "positional encoding"),
    ("归一化", "normalization"),
    ("激活函数", "activation function"),
    ("分词器", "tokenizer"),
    ("反向传播", "backpropagation"),
    ("反向", "backward"),
    ("前向", "forward"),
    ("梯度", "gradient"),
    ("检查点", "checkpoint"),
    ("重计算", "recomputation"),
    ("稀疏", "sparse", "sparsity"),
    ("后端", "backend"),
    ("前端", "frontend"),
    ("移植", "porting"),
    ("矩阵", "matrix"),
    ("向量", "vector"),
    ("计算", "compute", "computation"),
    ("指令集", "instruction set", "isa"),
    ("指令", "instruction"),
    ("数据类型", "data type", "dtype"),
    ("动态形状", "dynamic shape"),
    ("超长上下文", "长上下文", "long context"),
    ("专家", "expert"),
    ("路由", "routing", "router"),
    ("并行", "parallelism"),
)


def table(extra: Iterable[Iterable[str]], fold: Fold) -> list[list[str]]:
    """The package's groups and the corpus's own (`search_terms`), every spelling folded as the index
    folds text, spaces normalised; a group that shares a spelling with another is merged into it."""
    groups: list[list[str]] = []
    where: dict[str, int] = {}
    for group in [*TERMS, *(tuple(g) for g in extra)]:
        forms = []
        for form in group:
            folded = " ".join(fold.text(str(form)).replace("-", " ").split())
            if folded and folded not in forms:
                forms.append(folded)
        known = sorted({where[f] for f in forms if f in where})
        if known:
            target = groups[known[0]]
            for other in known[1:]:  # two groups joined by this one
                for f in groups[other]:
                    if f not in target:
                        target.append(f)
                groups[other] = []
            for f in forms:
                if f not in target:
                    target.append(f)
            for f in target:
                where[f] = known[0]
        elif len(forms) >= 2:
            for f in forms:
                where[f] = len(groups)
            groups.append(forms)
    return [g for g in groups if len(g) >= 2]
