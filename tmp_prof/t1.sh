set -x
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUVIS_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DGPUVIS_BUILD_TESTS=ON -DGPUVIS_BUILD_BENCHMARKS=ON > $OUT/configure.log 2>&1 || { tail -30 $OUT/configure.log; exit 1; }
cmake --build build-gpu -j16 --target test_cuda gpuvis_cli bench_pipeline > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
symdir=$PWD/build-gpu/symbols-pgm; mkdir -p $symdir
python3 -c "
import pathlib; from PIL import Image
for p in sorted(pathlib.Path('data/amoeba/symbols').glob('*.png')): Image.open(p).convert('L').save('$symdir/'+p.stem+'.pgm')
"
export GPUVIS_SYMBOL_PGM_DIR=$symdir
timeout 400 ./build-gpu/tests/test_cuda --gtest_filter='DecodeCuda.*:PipelineCuda.*' 2>&1 | tee $OUT/test.log | grep -vE "^\[ +(RUN|OK) " | tail -60
