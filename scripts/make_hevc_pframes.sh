#!/usr/bin/env bash
# Makes the H.265 test streams with frames between key frames (tests/data/hevc/), which the
# real Aria Gen2 sample lacks (all its frames are key frames): a 128×96 grey (4:0:0, as Gen2
# records its SLAM and eye cameras) and a 128×96 colour (4:2:0, as its RGB camera) moving
# pattern of 7 frames, a key frame every 3 (I P P I P P I), no B-frames, parameter sets
# before every key frame; and ffmpeg's own decode of each, the reference the tests compare
# against. Needs Debian's ffmpeg (libx265); run once, the outputs are committed.
set -euo pipefail
cd "$(dirname "$0")/../tests/data/hevc"
x265='keyint=3:min-keyint=3:bframes=0:scenecut=0:repeat-headers=1:log-level=error'
src='testsrc2=size=128x96:rate=10:duration=0.7'
ffmpeg -v error -y -f lavfi -i "$src" -pix_fmt gray -c:v libx265 -x265-params "$x265" \
  -f hevc pframes_gray.h265
ffmpeg -v error -y -i pframes_gray.h265 -f rawvideo -pix_fmt gray pframes_gray.ffmpeg.gray
ffmpeg -v error -y -f lavfi -i "$src" -pix_fmt yuv420p -c:v libx265 -x265-params "$x265" \
  -f hevc pframes_yuv420.h265
ffmpeg -v error -y -i pframes_yuv420.h265 -f rawvideo -pix_fmt yuv420p pframes_yuv420.ffmpeg.yuv
ls -l
