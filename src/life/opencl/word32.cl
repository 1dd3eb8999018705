/* Put before life/word_rule.h in the Life program: its rules on 32-bit words, the board in global
   memory (as the CUDA kernels' words: the host board's 64-bit words seen as pairs, low half first). */
#define GPUVIS_RULE static inline
#define GPUVIS_GLOBAL __global
#define GPUVIS_LIFE_W uint
#define GPUVIS_LIFE_BITS 32
#define GPUVIS_LIFE_I64 long
#define GPUVIS_LIFE_FN(name) life_##name
