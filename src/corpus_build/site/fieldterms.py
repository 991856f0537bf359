"""The field's terms in Chinese and English, one group of spellings a line (site/crossterms.py reads it).

Written for this tool's readers, Chinese-speaking engineers of GPU and accelerator kernels, compilers
and large-model training and serving: the words they type in one language for material written in the
other. A line: Chinese spellings, then English ones, separated by " | ". A Traditional or Taiwanese
spelling is listed where folding (site/hanfold.py) and the table's own Taiwanese conversion
(crossterms.taiwanese) would not reach it. Kept to the field and to the words of its documents
(tutorial, roadmap, survey): a word of everyday language here would make a query in one language
match everything in the other. English words are listed as the index cuts them (a plural's s is
found anyway: crossterms.py); other inflections (quantize, quantized, quantization) are listed.
"""

TABLE = """
# --- GPU hardware, CUDA ---------------------------------------------------------------------------
图形处理器 | 显卡 | 圖形處理單元 | gpu | graphics processing unit
通用图形处理器 | gpgpu | general purpose gpu
流式多处理器 | 流多处理器 | 多处理器 | streaming multiprocessor | sm
张量核心 | 张量核 | tensor core | tensor cores
核心 | core | cores
计算单元 | compute unit | processing unit
线程 | 執行緒 | thread
线程块 | 线程区块 | 執行緒區塊 | thread block | cta | cooperative thread array
线程块簇 | 线程块集群 | thread block cluster | cluster launch
线程束 | 執行緒束 | 线程组 | warp
线程束组 | warpgroup | warp group
线程束调度器 | warp scheduler
线程束特化 | warp specialization | warp specialized
线程束分化 | 分支分化 | warp divergence | divergence | divergent
线程束洗牌 | 束内洗牌 | warp shuffle | shuffle
线程束停顿 | 线程束阻塞 | warp stall | warp stalls
停顿 | 阻塞 | stall | stalls | stalled
线程网格 | 网格 | grid
网格大小 | grid size
块大小 | 线程块大小 | block size
占用率 | 佔用率 | occupancy
寄存器 | register | registers
寄存器文件 | register file
寄存器溢出 | register spilling | register spill | spilling
寄存器压力 | register pressure
共享内存 | shared memory | smem
全局内存 | 全域记忆体 | global memory | gmem
常量内存 | constant memory
纹理内存 | texture memory
本地内存 | 局部内存 | local memory
显存 | 设备内存 | device memory | gpu memory | vram
高带宽内存 | 高带宽存储 | hbm | high bandwidth memory
张量内存 | tensor memory | tmem
统一内存 | unified memory
锁页内存 | 页锁定内存 | pinned memory | page locked memory
主机内存 | host memory
主机 | host
设备 | device
片上内存 | 片上存储 | 片上缓存 | on chip memory | on chip buffer | on chip
片外内存 | off chip memory | off chip
内存层次 | 存储层次 | 内存层级 | 存储层级 | memory hierarchy
内存 | 存储器 | memory
记忆 | memory
缓存 | 快取 | 高速缓存 | cache | caching | cached
一级缓存 | l1 cache | l1
二级缓存 | l2 cache | l2
指令缓存 | instruction cache | icache
缓存行 | cache line
缓存命中 | cache hit
缓存未命中 | 缓存缺失 | cache miss
缓存策略 | 缓存提示 | cache policy | cache hint | eviction policy
缓存一致性 | cache coherence | cache coherency
存储体冲突 | 存储体 | 内存库冲突 | bank conflict | bank conflicts | bank
合并访存 | 访存合并 | 合并访问 | 内存合并 | coalesced access | memory coalescing | coalescing | coalesced | coalesce
访存 | 内存访问 | 存储访问 | memory access | memory accesses
访存模式 | 访问模式 | access pattern | memory access pattern
内存带宽 | 显存带宽 | memory bandwidth
带宽 | 頻寬 | bandwidth
延迟 | 时延 | 延時 | latency | latencies
延迟隐藏 | latency hiding
吞吐量 | 吞吐 | 吞吐率 | throughput
算术强度 | 计算强度 | 运算强度 | arithmetic intensity | operational intensity
屋顶线模型 | 屋顶线 | 屋顶模型 | roofline | roofline model
峰值性能 | 峰值算力 | peak performance | peak throughput
算力 | 计算能力 | compute capability | computing power
浮点运算 | 浮点运算次数 | flops | floating point operations
计算受限 | 计算密集 | compute bound | compute intensive
访存受限 | 内存受限 | 带宽受限 | memory bound | bandwidth bound
异步拷贝 | 异步复制 | 异步搬运 | async copy | asynchronous copy | cp async
张量内存加速器 | tma | tensor memory accelerator
批量拷贝 | 批量复制 | bulk copy | bulk
内存屏障 | 内存栅栏 | memory barrier | memory fence | fence
屏障 | 栅栏 | barrier | barriers
同步 | synchronization | synchronize | sync
异步 | 非同步 | asynchronous | async
异步屏障 | async barrier | mbarrier
原子操作 | 原子运算 | atomic operation | atomic operations | atomics | atomic
原子加 | 原子加法 | atomic add | atomicadd | atomic_add
内存序 | 内存顺序 | memory order | memory ordering | memory_order
内存一致性 | memory consistency
内存一致性模型 | 内存模型 | memory consistency model | memory model
一致性 | consistency | coherence
宽松 | relaxed
获取释放 | acquire release
可见性 | visibility
核函数 | 内核函数 | kernel function
内核 | 核心 | kernel | kernels
内核启动 | 核函数启动 | kernel launch
启动 | launch
启动开销 | launch overhead
持久化内核 | 持久内核 | 常驻内核 | persistent kernel | persistent kernels
持久化 | 持久 | persistent | persistence
流多处理器数量 | sm count
指令 | instruction | instructions
指令集 | 指令集架构 | instruction set | isa | instruction set architecture
指令级并行 | instruction level parallelism | ilp
并行线程执行 | parallel thread execution | ptx
汇编 | 汇编语言 | assembly
矩阵乘加 | matrix multiply accumulate | mma
张量核心指令 | wgmma | tcgen05
双缓冲 | double buffering | double buffer
多级流水线 | 多级流水 | 多阶段流水线 | multistage pipeline | multi stage
软件流水线 | 软件流水 | software pipelining | software pipeline
流水线 | 流水 | 管线 | 管道 | pipeline | pipelining | pipelined
流水线气泡 | 气泡 | bubble | pipeline bubble | bubbles
流水线调度 | 流水调度 | pipeline schedule | pipeline scheduling
多流水 | 多条流水线 | multiple pipelines | multi pipeline
数据搬运 | 数据移动 | 搬运 | data movement | data transfer | data move
数据传输 | 传输 | transfer | data transfer
拷贝 | 复制 | copy | copies
加载 | 载入 | load | loading
存储 | store | storage
预取 | prefetch | prefetching
分块 | 切块 | 分片计算 | tiling | tile | tiled | tiles
分块大小 | 块尺寸 | tile size | tile shape
布局 | 排布 | 数据布局 | layout | layouts
布局代数 | layout algebra
混洗 | 交错 | swizzle | swizzling | swizzled
交织 | interleave | interleaved | interleaving
转置 | transpose | transposed
向量化 | vectorization | vectorize | vectorized
循环展开 | 展开 | loop unrolling | unroll | unrolling
循环 | loop | loops
循环分块 | loop tiling
循环融合 | loop fusion
循环变换 | loop transformation | loop transformations
边界检查 | bounds check | boundary check
分支 | branch | branches
谓词 | predicate | predication
掩码 | 掩膜 | mask | masking
归约 | 规约 | reduction | reduce
扫描 | 前缀和 | scan | prefix sum
排序 | sort | sorting
直方图 | histogram
束内归约 | warp reduce | warp reduction
生产者 | producer
消费者 | consumer
生产者消费者 | producer consumer
乒乓 | ping pong | pingpong
多播 | multicast
分布式共享内存 | distributed shared memory | dsmem
片段 | fragment | fragments
描述符 | descriptor | descriptors
主循环 | main loop | mainloop
尾声 | 收尾 | epilogue
序言 | prologue
原语 | primitive | primitives
内建函数 | 内置函数 | 内联函数 | intrinsic | intrinsics | builtin
位运算 | 按位运算 | bitwise | bit manipulation
常数 | 常量 | constant | constants
微架构 | microarchitecture | micro architecture
架构 | 体系结构 | architecture | arch
硬件 | 硬體 | hardware
软件 | software
芯片 | 晶片 | chip | chips | silicon
加速器 | accelerator | accelerators
处理器 | processor
中央处理器 | cpu
神经网络处理器 | 神经处理单元 | npu | neural processing unit
数据中心 | datacenter | data center
集群 | 叢集 | cluster
互联 | 互连 | interconnect
网卡 | nic | network card
远程直接内存访问 | rdma | remote direct memory access
功耗 | power consumption | power
能效 | energy efficiency
图灵 | turing
安培 | ampere
英伟达 | 輝達 | nvidia
统一计算设备架构 | cuda
微基准 | 微基准测试 | 微基準 | microbenchmark | microbenchmarks | microbenchmarking | benchmarking
实测 | 测量 | 实测数据 | measured | measurement | measurements
厂商 | 供应商 | vendor | vendors
官方数据 | 宣称 | 声称 | claims | claimed
剖析 | 解剖 | dissecting | dissect | demystifying
兼容性 | compatibility
兼容性指南 | compatibility guide
调优指南 | tuning guide
编程指南 | programming guide
最佳实践 | best practices | best practice
性能模型 | performance model
性能 | 效能 | performance
高性能 | high performance
高效 | efficient
效率 | efficiency
利用率 | utilization
瓶颈 | bottleneck | bottlenecks
# --- Ascend, CANN, other accelerators --------------------------------------------------------------
昇腾 | 升腾 | 昇騰 | ascend
华为 | 華為 | huawei
达芬奇架构 | 达芬奇 | da vinci | davinci
异构计算架构 | cann
算子 | 運算元 | operator | operators | op | ops
算子开发 | 算子开发指南 | operator development | kernel development | custom operator development
算子库 | 内核库 | operator library | kernel library
自定义算子 | custom operator | custom kernel | custom op
融合算子 | fused operator | fused kernel
算子融合 | 内核融合 | kernel fusion | operator fusion
融合 | fusion | fuse | fused
矩阵计算单元 | 矩阵单元 | 立方单元 | cube unit | cube
向量计算单元 | 向量单元 | vector unit
标量单元 | scalar unit
统一缓冲区 | unified buffer | ub
缓冲区 | 缓冲 | buffer | buffers
毕昇编译器 | 毕昇 | bisheng compiler | bisheng
图引擎 | graph engine
昇思 | mindspore
海光 | hygon
摩尔线程 | moore threads | musa
寒武纪 | cambricon
沐曦 | metax
国产芯片 | 国产加速器 | domestic accelerators | domestic chips
单指令多线程 | simt | single instruction multiple threads
单指令多数据 | simd | single instruction multiple data
# --- compilers, languages, tools --------------------------------------------------------------------
编译器 | 編譯器 | compiler | compilers
计算图 | computation graph | compute graph
图编译 | graph compilation
优化 | 最佳化 | optimization | optimize | optimized | optimizing | optimisation
计算 | 运算 | compute | computation | computing
编译 | compile | compilation | compiling | compiled
深度学习编译器 | deep learning compiler | dl compiler
张量编译器 | tensor compiler
即时编译 | 即時編譯 | jit | just in time
提前编译 | 预编译 | ahead of time | aot
中间表示 | intermediate representation | ir
多层中间表示 | mlir | multi level intermediate representation
方言 | dialect | dialects
下降 | 降低 | lowering | lowered
降级 | downgrade | downgrades | downgraded | degrade
编译遍 | pass | passes | compiler pass
优化遍 | optimization pass
推导 | 推断 | derivation | derive
代码生成 | 代码产生 | codegen | code generation
后端 | 後端 | backend | backends
前端 | frontend | frontends
多后端 | multi backend | multiple backends
目标平台 | 目标 | target | targets
调度 | 排程 | scheduling | schedule | schedules
调度器 | 排程器 | scheduler
调度原语 | schedule primitive | schedule primitives
自动调度 | auto scheduling | auto scheduler | autoscheduler | auto schedule
自动调优 | 自动调参 | auto tuning | autotuning | autotune | autotuner
调优 | 调参 | tuning | tune
性能调优 | performance tuning
搜索空间 | search space
代价模型 | 成本模型 | cost model
张量程序 | tensor program | tensor programs
张量程序优化 | tensor program optimization
概率程序 | 概率编程 | probabilistic program | probabilistic programming
领域特定语言 | 领域专用语言 | 特定领域语言 | dsl | domain specific language
嵌入式领域特定语言 | embedded dsl | edsl
编程语言 | programming language
编程模型 | programming model
编程接口 | programming interface
接口 | 介面 | interface | interfaces | api
语法 | syntax | grammar
语义 | semantics | semantic
类型系统 | type system
类型推导 | 类型推断 | type inference
类型检查 | type checking | type check
静态分析 | static analysis
静态 | static
动态 | dynamic
动态形状 | 动态shape | dynamic shape | dynamic shapes
符号形状 | symbolic shape | symbolic shapes
形状 | shape | shapes
多面体 | 多面体模型 | polyhedral | polyhedral model
仿射 | affine
数据流 | dataflow | data flow
控制流 | control flow
抽象语法树 | 语法树 | ast | abstract syntax tree
解释器 | interpreter
运行时 | 執行時期 | runtime | run time
编译时 | 编译期 | compile time
元编程 | metaprogramming
模板 | template | templates
装饰器 | decorator
函数 | 函式 | function | functions
程序 | 程式 | program | programs
进程 | process | processes
变量 | variable | variables
指针 | pointer | pointers
数组 | 阵列 | array | arrays
张量 | tensor | tensors
矩阵 | matrix | matrices
向量 | 矢量 | vector | vectors
标量 | scalar
维度 | dimension | dimensions | dim
步长 | stride | strides
索引 | index | indexing | indices
切片 | slice | slicing
视图 | view | views
内存分配 | 分配 | allocation | allocate | alloc
内存管理 | 显存管理 | memory management
内存池 | memory pool
内存泄漏 | memory leak
内存碎片 | 碎片 | fragmentation
分页 | paging | paged
页表 | page table
块表 | block table
链接器 | 链接 | linker | linking
调试 | 除錯 | debug | debugging | debugger
调试工具 | debugging tools | debug tools
缺陷 | 漏洞 | bug | bugs | defect
静默 | 悄悄 | silent | silently
错误代码 | 错误编译 | 误编译 | wrong code | miscompilation | miscompile
模糊测试 | fuzzing | fuzzer | fuzz
回归 | regression
测试 | test | testing | tests
单元测试 | unit test | unit tests
正确性 | correctness
正确 | correct
错误 | 報錯 | error | errors
异常 | exception
超时 | timeout
死锁 | deadlock
数据竞争 | 竞态条件 | data race | race condition
崩溃 | crash
验证 | 校验 | verification | verify | validation
形式化验证 | formal verification
求解器 | solver | solvers
求解 | solve | solving
约束 | constraint | constraints | constrained
约束求解 | constraint solving
整数线性规划 | integer linear programming | ilp
可满足性模理论 | smt | satisfiability modulo theories
证明 | proof | prove | proofs
复杂度 | complexity
期望 | expected | expectation
随机 | random | randomized | stochastic
确定性 | deterministic | determinism
寻址 | addressing
卸载 | offload | offloading
查找表 | 查表 | lookup table | lookup
哈希表 | hash table
大表 | large table | big table
嵌入表 | embedding table
可扩展 | scalable
可扩展性 | scalability
可移植性 | 可移植 | portability | portable
通用 | general purpose | generic
专用 | specialized | dedicated
特化 | specialization | specialize
语言服务器 | 语言服务 | language server | lsp | language server protocol
编辑器 | editor
代码补全 | 自动补全 | code completion | autocomplete
语法高亮 | 高亮 | syntax highlighting | highlighting
性能分析 | 性能剖析 | profiling | profiler | profile
性能分析器 | 剖析器 | profiler
基准测试 | 基准 | 跑分 | benchmark | benchmarks | benchmarking
评测 | 评估 | evaluation | evaluate | benchmark
差距 | gap
工具 | tool | tools | tooling
工具链 | toolchain
框架 | framework | frameworks
函数库 | library | libraries
生态 | 生态系统 | ecosystem
集成 | 整合 | integration | integrate | integrated
插件 | plugin | plugins
扩展 | extension | extend | extensions
适配 | 适配层 | adapter | adapters | adaptation
移植 | porting | port | ported
迁移 | migration | migrate | migrating
重构 | refactoring | refactor
解耦 | decoupling | decouple | decoupled
抽象 | abstraction | abstractions
抽象层 | abstraction layer
模块 | module | modules
组件 | component | components
依赖 | dependency | dependencies
构建 | build | building
打包 | packaging | package
容器 | container
驱动 | 驅動程式 | driver | drivers
操作系统 | operating system
虚拟化 | virtualization
# --- parallelism, distributed training, communication -----------------------------------------------
并行 | 平行 | parallel | parallelism
并行计算 | 平行运算 | parallel computing
数据并行 | data parallelism | data parallel | dp
张量并行 | tensor parallelism | tensor parallel | tp
流水线并行 | 流水并行 | 管线并行 | pipeline parallelism | pipeline parallel | pp
双向流水线 | 双向流水 | 双向流水线并行 | bidirectional pipeline | bidirectional pipeline parallelism
序列并行 | sequence parallelism | sequence parallel | sp
上下文并行 | context parallelism | context parallel | cp
专家并行 | expert parallelism | expert parallel | ep
模型并行 | model parallelism | model parallel
完全分片数据并行 | fully sharded data parallel | fsdp
零冗余优化器 | zero redundancy optimizer
分片 | shard | sharding | sharded | shards
分布式 | 分散式 | distributed
分布式训练 | distributed training
集合通信 | 集合通讯 | collective communication | collectives | collective
通信 | 通讯 | communication | communications
通信库 | 通讯库 | communication library
点对点 | point to point | p2p
全归约 | all reduce | allreduce
全收集 | all gather | allgather
归约散射 | reduce scatter
全对全 | 全交换 | all to all | alltoall
分发 | dispatch | dispatching
聚合 | combine | aggregation
合并 | merge | merged | merging
重叠 | 掩盖 | overlap | overlapping | overlapped
计算通信重叠 | 通信计算重叠 | 通信掩盖 | communication overlap | overlap communication
节点 | node | nodes
节点间 | 跨节点 | inter node | internode
节点内 | 机内 | intra node | intranode
跨卡 | 多卡 | multi gpu | multiple gpus
多机 | multi node
跨设备 | across devices | across gpus
梯度同步 | gradient synchronization | gradient sync
梯度 | gradient | gradients
梯度累积 | gradient accumulation
激活检查点 | 梯度检查点 | activation checkpointing | gradient checkpointing
重计算 | 重算 | recomputation | recompute | recomputing | rematerialization
检查点 | checkpoint | checkpoints | checkpointing
优化器 | optimizer | optimizers
学习率 | learning rate
损失函数 | loss function
损失 | loss
反向传播 | backpropagation | backward pass
反向 | 后向 | backward
前向 | forward
前向传播 | forward pass
训练 | training | train
训练循环 | training loop
训练框架 | training framework
训练稳定性 | training stability
预训练 | pretraining | pre training | pretrain
后训练 | post training
微调 | fine tuning | finetuning | fine tune | finetune
参数高效微调 | parameter efficient fine tuning | peft
低秩适配 | low rank adaptation | lora
强化学习 | reinforcement learning | rl
人类反馈强化学习 | rlhf
蒸馏 | 知识蒸馏 | distillation | knowledge distillation
剪枝 | pruning
对齐 | alignment | align | aligned
硬件对齐 | hardware aligned | hardware alignment
可训练 | trainable
原生 | native | natively
端到端 | end to end
# --- precision, quantization ------------------------------------------------------------------------
量化 | quantization | quantize | quantized
反量化 | dequantization | dequantize
权重量化 | weight quantization | weight only quantization
低精度 | low precision
混合精度 | mixed precision
低比特 | 低位元 | 低位宽 | low bit
比特 | 位元 | bit | bits
位宽 | bit width | bitwidth
字节 | 位元组 | byte | bytes
半精度 | half precision | fp16
单精度 | single precision | fp32
双精度 | double precision | fp64
脑浮点 | bf16 | bfloat16
浮点 | 浮点数 | floating point | float
整数 | integer | int
数据类型 | data type | dtype | data types
精度 | precision | accuracy
数值稳定性 | 数值稳定 | numerical stability
数值 | numerical | numeric
溢出 | overflow
缩放 | scaling | scale | scaled
块缩放 | block scaling | block scaled | block scale
缩放因子 | scale factor | scaling factor
微缩放 | microscaling | mx format
# --- models, attention, MoE, serving ----------------------------------------------------------------
大语言模型 | 大模型 | 大型语言模型 | llm | large language model | large language models | llms
语言模型 | language model | language models
模型 | model | models
模型架构 | 模型设计 | model architecture | model design
模型卡 | 模型卡片 | model card
变换器 | transformer | transformers
注意力 | 注意力机制 | attention | attention mechanism
自注意力 | self attention
交叉注意力 | cross attention
多头注意力 | multi head attention | mha
多查询注意力 | multi query attention | mqa
分组查询注意力 | grouped query attention | gqa
多头潜在注意力 | 多头隐注意力 | 多头潜注意力 | multi head latent attention | mla
潜在 | latent
稀疏注意力 | sparse attention
原生稀疏注意力 | native sparse attention | nsa
线性注意力 | linear attention
分页注意力 | paged attention | pagedattention
精确注意力 | exact attention
闪电注意力 | lightning attention
滑动窗口注意力 | sliding window attention
因果掩码 | causal mask | causal masking
注意力汇 | attention sink | attention sinks
输入输出感知 | io 感知 | io aware | io awareness
感知 | aware | awareness
工作划分 | 任务划分 | work partitioning | work partition
划分 | 切分 | partition | partitioning | split
更好的并行 | better parallelism
键值缓存 | 键值对缓存 | kv 缓存 | kv cache | key value cache | kvcache
前缀缓存 | prefix caching | prefix cache
预填充 | 预填 | prefill | prefilling
解码 | decode | decoding
推测解码 | 投机解码 | 投机采样 | 推测采样 | speculative decoding | speculative sampling
采样 | sampling | sample
批处理 | 批量 | batching | batch | batched
连续批处理 | continuous batching
推理 | inference | reasoning
推理引擎 | inference engine
推理服务 | 服务 | serving | inference serving
推理框架 | inference framework
首字延迟 | 首token延迟 | time to first token | ttft
上下文 | context
长上下文 | 超长上下文 | long context
上下文长度 | 上下文窗口 | context length | context window
百万 | million | millions
混合专家 | 专家混合 | 混合专家模型 | mixture of experts | moe
专家 | expert | experts
路由 | routing | router | route
门控 | gate | gating
负载均衡 | load balancing | load balance | load balancer
专家负载均衡 | expert load balancing | eplb
共享专家 | shared expert | shared experts
细粒度 | fine grained | fine grain
粗粒度 | coarse grained
条件计算 | conditional computation
条件记忆 | conditional memory
稀疏 | sparse | sparsity
稀疏性 | sparsity
稠密 | 密集 | dense
稀疏矩阵 | sparse matrix
稀疏矩阵乘 | spmm | sparse matrix multiplication
残差连接 | 残差 | residual connection | residual | residuals
超连接 | hyper connection | hyper connections | hyperconnection | hyperconnections
流形 | manifold
流形约束 | manifold constrained
嵌入 | embedding | embeddings
词表 | 词汇表 | vocabulary | vocab
分词 | 分词器 | tokenizer | tokenization
位置编码 | positional encoding | position embedding | positional embedding
旋转位置编码 | rotary position embedding | rotary embedding | rope
归一化 | normalization | norm
层归一化 | layer normalization | layernorm | layer norm
均方根归一化 | rms normalization | rmsnorm | rms norm
激活函数 | activation function | activation functions
激活值 | 激活 | activation | activations
权重 | weight | weights
参数 | parameter | parameters | params
参数量 | parameter count
解码器 | decoder
编码器 | encoder
前馈网络 | 前馈层 | feed forward | ffn | feedforward network
多模态 | multimodal | multi modal
视觉 | vision | visual
扩散模型 | diffusion model | diffusion
智能体 | agent | agents | agentic
思维链 | chain of thought | cot
显存估算 | 显存估计 | 显存占用 | memory estimation | memory footprint | memory usage | memory requirements
估算 | 估计 | estimate | estimation | estimator
缩放定律 | 扩展定律 | 规模定律 | scaling law | scaling laws
容量 | capacity
分配 | allocation | allocate
数据集 | dataset | datasets
卷积 | convolution | conv
矩阵乘法 | 矩阵乘 | 矩阵相乘 | matrix multiplication | matmul | gemm | general matrix multiply
分组矩阵乘 | grouped gemm | grouped matmul
批量矩阵乘 | batched gemm | batched matmul | batch matmul
矩阵向量乘 | gemv | matrix vector multiplication
逐元素 | element wise | elementwise
广播 | broadcast | broadcasting
前k | topk | top k
选择 | selection | select | choose | choice
# --- documents, projects, people ------------------------------------------------------------------
教程 | tutorial | tutorials
课程 | course | courses
视频 | 影片 | video | videos
视频课程 | 视频教程 | video course | video tutorial
课时 | lesson | lessons
练习 | 习题 | exercise | exercises | practice
谜题 | 难题 | puzzle | puzzles
分级 | 分级练习 | graded | graded exercises
示例 | 例子 | 样例 | 范例 | example | examples | sample
文档 | 说明文档 | documentation | docs | document
指南 | guide | guides
手册 | manual
参考 | reference
规范 | 规格 | specification | spec
白皮书 | whitepaper | white paper
论文 | paper | papers
综述 | 调研报告 | survey | review
博客 | blog
文章 | article | post
报告 | report
笔记 | notes
入门 | 入门指南 | getting started | introduction | beginner
快速入门 | quickstart | quick start
介绍 | 简介 | introduction | intro
概览 | 概述 | 总览 | overview
总结 | 小结 | summary
摘要 | 日报 | digest | abstract
深入分析 | 深度解析 | 深入剖析 | deep dive
简析 | 浅析 | brief analysis
分析 | 解析 | analysis | analyze
源码解读 | 源码分析 | code walkthrough | source code analysis
原理 | principle | principles
设计 | design
算法 | 演算法 | algorithm | algorithms
数据结构 | data structure
实现 | 實作 | implementation | implement | implemented
首次 | 第一次 | 首个 | first
公开 | public | publicly
官方 | official
安装 | installation | install
环境配置 | 环境搭建 | environment setup | setup
部署 | deployment | deploy
配置 | configuration | config
仓库 | 代码仓库 | 代码库 | 存储库 | repository | repo
源码 | 源代码 | 原始码 | source code
开源 | open source | open sourced
许可证 | license
版本 | version | versions
发布 | 发行 | release | released
发布计划 | 版本计划 | release plan
路线图 | 路线 | roadmap | road map
讨论 | discussion
问题 | issue | problem
拉取请求 | 合并请求 | pull request | pr
提交 | commit | commits
未合并 | unmerged | in flight
维护者 | maintainer | maintainers
社区 | community
贡献 | contribution | contribute | contributing
区别 | 差异 | 不同 | difference | differences | different
比较 | 对比 | comparison | compare | versus | vs
组件地图 | component map
地图 | map
映射 | mapping | map
对照 | correspondence | mapping
前沿 | frontier | cutting edge
研究 | research | study
调研 | survey | investigation
观察 | observation | observations
新闻 | 动态 | news
技巧 | 诀窍 | trick | tricks | technique | techniques
上游 | upstream
下游 | downstream
分叉 | fork
镜像 | mirror
归档 | 存档 | archive | archived
# --- makers, labs, models, products: the names Chinese writers use ---------------------------------
深度求索 | deepseek
通义千问 | 千问 | qwen
阿里巴巴 | 阿里 | 阿里云 | alibaba | alibaba cloud
字节跳动 | 字节 | bytedance
腾讯 | tencent
百度 | baidu
智谱 | zhipu | glm
月之暗面 | moonshot | kimi
零一万物 | 01.ai
百川 | baichuan
智源 | 北京智源 | baai
清华大学 | 清华 | tsinghua | tsinghua university
北京大学 | 北大 | peking university | pku
上海交通大学 | 上海交大 | 交大 | sjtu | shanghai jiao tong university
中国科学院 | 中科院 | chinese academy of sciences | cas
微软 | microsoft
谷歌 | google
苹果 | apple
亚马逊 | amazon | aws
超威 | 超微半导体 | amd
英特尔 | intel
高通 | qualcomm
三星 | samsung
台积电 | tsmc
抱抱脸 | hugging face | huggingface
知乎 | zhihu
壁仞 | 壁仞科技 | biren
燧原 | 燧原科技 | enflame
天数智芯 | iluvatar
昆仑芯 | kunlunxin | kunlun
平头哥 | t head
海思 | hisilicon
鲲鹏 | kunpeng
鸿蒙 | harmonyos
飞桨 | paddlepaddle | paddle
国产 | 国产化 | domestic | localization
出口管制 | export control | export controls
# --- Ascend, CANN in more detail --------------------------------------------------------------------
昇腾算子 | ascend operator | ascend kernel | ascend c operator
昇腾处理器 | 昇腾芯片 | ascend processor | ascend chip | ascend npu
算子编译 | operator compilation | kernel compilation
算子调优 | operator tuning | kernel tuning
算子开发工具 | operator development tools
单算子 | 单算子模式 | single operator | single op
图模式 | graph mode
静态图 | static graph
动态图 | 即时执行 | eager mode | dynamic graph | eager
集合通信库 | collective communication library | hccl | nccl
华为集合通信库 | hccl
切分策略 | 分核 | tiling strategy | tiling function
多核 | multi core | multicore
核间同步 | inter core synchronization | cross core synchronization
核间通信 | inter core communication
搬入 | copy in | copyin
搬出 | copy out | copyout
队列 | 佇列 | queue | queues
流水线同步 | pipeline synchronization
标志位 | flag | flags
事件同步 | event synchronization
# --- compilers and runtimes in more detail ----------------------------------------------------------
张量中间表示 | tensor ir | tensorir
张量表达式 | tensor expression | te
调度空间 | schedule space
元调度 | metaschedule | meta schedule
程序变换 | program transformation | program transformations
程序综合 | 程序合成 | program synthesis
超优化 | superoptimization | superoptimizer
等式饱和 | equality saturation | e graph | egraph
重写 | 改写 | rewrite | rewriting | rewrites
规则 | rule | rules
模式匹配 | pattern matching
合法化 | legalization | legalize
转换 | 变换 | conversion | transformation | transform
分析遍 | analysis pass
常量折叠 | constant folding
死代码消除 | dead code elimination | dce
公共子表达式消除 | common subexpression elimination | cse
内联 | inline | inlining
循环不变量外提 | loop invariant code motion | licm
指令选择 | instruction selection
指令调度 | instruction scheduling
寄存器分配 | register allocation
内存规划 | memory planning
内存复用 | memory reuse
别名分析 | alias analysis
依赖分析 | dependence analysis | dependency analysis
数据依赖 | data dependency | data dependence
同步插入 | synchronization insertion | sync insertion
自动同步 | automatic synchronization | auto sync
自动向量化 | auto vectorization | automatic vectorization
自动并行 | auto parallelization | automatic parallelization
自动微分 | automatic differentiation | autodiff | autograd
计算图优化 | graph optimization
图融合 | graph fusion
内核生成 | kernel generation
代码模板 | code template
源到源 | source to source
前端语言 | frontend language
绑定 | binding | bindings
外部函数接口 | ffi | foreign function interface
应用二进制接口 | abi | application binary interface
二进制 | binary
可执行文件 | executable
共享库 | 动态库 | shared library
静态库 | static library
头文件 | header | headers
命令行 | 命令列 | command line | cli
环境变量 | environment variable | environment variables
日志 | log | logging | logs
报错信息 | 错误信息 | error message | error messages
警告 | warning | warnings
断言 | assertion | assert
单步调试 | stepping
可视化 | visualization | visualize
追踪 | 跟踪 | trace | tracing
时间线 | timeline
计时 | timing
火焰图 | flame graph
热点 | hotspot | hot spot
# --- serving and systems --------------------------------------------------------------------------
推理加速 | inference acceleration
推理优化 | inference optimization
部署推理 | 模型部署 | model deployment | model serving
服务器 | 伺服器 | server
客户端 | client
请求 | request | requests
调度策略 | scheduling policy
抢占 | preemption | preempt
卸载到主机 | host offload | cpu offload
分离式推理 | 预填充解码分离 | 存算分离 | disaggregated inference | disaggregation | pd disaggregation
张量切分 | tensor sharding
权重加载 | weight loading
模型权重 | model weights
开源模型 | open source model | open weights
闭源 | closed source
基座模型 | 基础模型 | base model | foundation model
指令微调 | instruction tuning
对话 | chat | conversation
提示词 | 提示 | prompt | prompts
上下文学习 | in context learning
检索增强生成 | retrieval augmented generation | rag
向量数据库 | vector database
嵌入模型 | embedding model
生成 | generation | generate
评测集 | benchmark suite | eval set
排行榜 | leaderboard
# --- algorithms and math ---------------------------------------------------------------------------
线性代数 | linear algebra
矩阵分解 | matrix decomposition | matrix factorization
低秩 | low rank
奇异值分解 | singular value decomposition | svd
快速傅里叶变换 | 傅里叶变换 | fast fourier transform | fft | fourier transform
指数 | exponential | exp
对数 | logarithm | log
近似 | approximation | approximate
数值精度 | numerical precision
误差 | error | errors
收敛 | convergence | converge
概率 | probability
分布 | distribution
优化问题 | optimization problem
搜索 | search
贪心 | greedy
动态规划 | dynamic programming
图算法 | graph algorithm
启发式 | heuristic | heuristics
代价 | cost
开销 | overhead
上界 | upper bound
下界 | lower bound
理论 | theory | theoretical
实验 | experiment | experiments | experimental
消融实验 | ablation | ablation study
复现 | reproduce | reproduction | reproducibility
"""
