"""The autograd graph picture: nodes and edges against an independent walk of grad_fn/next_edges,
the drawn figure's boxes, arrows and labels, DOT text parsed back, PNG/SVG files, saved bytes
against the arrays' sizes, broadcasting's sum-back, collapsed repeats, the max_nodes cut,
checkpoint segments, autocast dtypes and the graph of a backward pass."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter, deque

import matplotlib
import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn as nn
import minigenesis.nn.functional as F
from minigenesis.utils.checkpoint import checkpoint_sequential
from minigenesis.viz import draw_graph, graph

matplotlib.use("Agg")


def _walk(*tensors):
    """The graph as the engine sees it, walked here independently: vertex -> input vertices."""
    inputs, queue = {}, deque(t.grad_fn or t for t in tensors)
    while queue:
        v = queue.popleft()
        if id(v) in inputs:
            continue
        kids = [e[0] for e in getattr(v, "next_edges", ()) if e is not None]
        inputs[id(v)] = (v, kids)
        queue.extend(kids)
    return inputs


def _name(v, names):
    return names.get(id(v), "tensor") if hasattr(v, "_data") else v.name  # our op names


def _expected(tensors, params):
    names = {id(p): n for n, p in params}
    walked = _walk(*tensors)
    nodes = Counter(_name(v, names) for v, _ in walked.values())
    edges = Counter((_name(k, names), _name(v, names)) for v, kids in walked.values()
                    for k in kids)  # fmt: skip
    return nodes, edges


def _mlp_step():
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 3))
    x, y = mg.randn(64, 2), mg.randint(0, 3, (64,))
    loss = F.cross_entropy(model(x), y)
    return model, x, loss


def _node_texts(fig):
    return [t for ax in fig.axes for t in ax.texts if t.get_gid() == "node"]


def _edge_artists(fig):
    return [t for ax in fig.axes for t in ax.texts if t.get_gid() == "edge"]


def test_mlp_graph_matches_an_independent_walk_of_next_edges():
    model, _, loss = _mlp_step()
    g = graph(loss, params=model)
    nodes, edges = _expected([loss], list(model.named_parameters()))
    assert Counter(n.name for n in g.nodes) == nodes
    assert Counter(g.edge_names()) == edges
    assert {"0.weight", "0.bias", "2.weight", "2.bias"} <= {n.name for n in g.nodes}
    out = [n for n in g.nodes if n.is_output]
    assert len(out) == 1 and out[0].depth == 0 and out[0].obj is loss.grad_fn


def test_rows_are_the_longest_distance_from_the_output():
    model, _, loss = _mlp_step()
    g = graph(loss, params=model)
    by_id = {n.id: n for n in g.nodes}
    for a, b in g.edges:  # an input sits at least one row above every op that uses it
        assert by_id[a].depth >= by_id[b].depth + 1
    for n in g.nodes:  # and exactly one row above the lowest of them
        users = [by_id[b].depth for a, b in g.edges if a == n.id]
        if users:
            assert n.depth == max(users) + 1


def test_op_boxes_give_output_shape_and_dtype_and_what_was_saved():
    model, x, loss = _mlp_step()
    g = graph(loss, params=model)
    linear = [n for n in g.nodes if n.name == "Linear"]
    assert sorted(n.shape for n in linear) == [(64, 3), (64, 16)]
    first = next(n for n in linear if n.shape == (64, 16))
    # Linear saves its input x for the weight's gradient (and the weight only for x's, which
    # this x does not want, as PyTorch): the bytes are the array's size.
    assert [s.nbytes for s in first.saved] == [x._data.nbytes]
    second = next(n for n in linear if n.shape == (64, 3))  # its input h wants a gradient
    assert sorted(s.nbytes for s in second.saved) == sorted(
        [64 * 16 * 4, model[2].weight._data.nbytes]
    )
    assert {s.role for s in first.saved} == {"input"}
    text = "\n".join(first.lines())
    assert "(64, 16) float32" in text and f"{x._data.nbytes} B" in text


def test_figure_has_one_box_per_node_and_one_arrow_per_edge():
    model, _, loss = _mlp_step()
    g = graph(loss, params=model)
    fig = g.draw()
    boxes = _node_texts(fig)
    assert len(boxes) == len(g.nodes)
    assert len(_edge_artists(fig)) == len(g.edges)
    labels = [b.get_text() for b in boxes]
    assert sum(label.startswith("Linear\n") for label in labels) == 2
    assert any(label.startswith("2.weight\n(3, 16) float32") for label in labels)


def test_draw_graph_is_graph_then_draw_and_renders_inline():
    model, _, loss = _mlp_step()
    fig = draw_graph(loss, params=model)
    assert len(_node_texts(fig)) == len(graph(loss, params=model).nodes)
    assert fig._repr_png_()[:4] == b"\x89PNG"
    assert graph(loss)._repr_png_()[:4] == b"\x89PNG"


def test_leaves_without_params_are_labelled_by_shape():
    a = mg.randn(3, 4, requires_grad=True)
    g = graph((a * 2).sum())
    leaf = next(n for n in g.nodes if n.kind == "leaf")
    assert leaf.name == "tensor" and leaf.lines()[1] == "(3, 4) float32"


def _parse_dot(text):
    nodes = dict(re.findall(r'^\s*(n\d+) \[label="((?:[^"\\]|\\.)*)"', text, flags=re.M))
    edges = re.findall(r"^\s*(n\d+) -> (n\d+);", text, flags=re.M)
    return nodes, edges


def test_dot_text_holds_the_same_nodes_and_edges():
    model, _, loss = _mlp_step()
    g = graph(loss, params=model)
    text = g.to_dot()
    assert text.startswith("digraph autograd {") and text.rstrip().endswith("}")
    nodes, edges = _parse_dot(text)
    assert len(nodes) == len(g.nodes)
    names = {k: label.split("\\n")[0] for k, label in nodes.items()}
    assert Counter(names.values()) == Counter(n.name for n in g.nodes)
    assert Counter((names[a], names[b]) for a, b in edges) == Counter(g.edge_names())


def test_saves_png_svg_and_dot(tmp_path):
    model, _, loss = _mlp_step()
    g = graph(loss, params=model)
    g.save(tmp_path / "g.png", dpi=60)
    g.save(tmp_path / "g.svg")
    g.save(tmp_path / "g.dot")
    assert (tmp_path / "g.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    root = ET.parse(tmp_path / "g.svg").getroot()
    assert root.tag.endswith("svg")
    assert (tmp_path / "g.dot").read_text() == g.to_dot()


def test_broadcast_input_gets_a_sum_to_node():
    a = mg.randn(3, 4, requires_grad=True)
    b = mg.randn(4, requires_grad=True)
    g = graph((a * b).sum(), params={"a": a, "b": b})
    (s,) = [n for n in g.nodes if n.kind == "sum_to"]
    assert s.shape == (4,)
    by_name = {n.name: n.id for n in g.nodes}
    assert (by_name["b"], s.id) in g.edges and (s.id, by_name["Mul"]) in g.edges
    assert (by_name["a"], by_name["Mul"]) in g.edges  # same shape as the output: no sum
    # What the box stands for: b's gradient is the output's gradient summed over rows.
    (a * b).sum().backward()
    np.testing.assert_allclose(b.grad.numpy(), a.detach().numpy().sum(0), rtol=1e-6)
    assert not [n for n in graph((a * b).sum(), show_broadcast=False).nodes if n.kind == "sum_to"]


def _deep(n_layers):
    mg.manual_seed(0)
    layers = [nn.Linear(2, 8)]
    for _ in range(n_layers):
        layers += [nn.Linear(8, 8), nn.Tanh()]
    return nn.Sequential(*layers, nn.Linear(8, 1))


def test_identical_layers_are_drawn_once_with_their_count():
    model = _deep(10)
    out = model(mg.randn(4, 2)).sum()
    full = graph(out, params=model, collapse=False)
    g = graph(out, params=model)
    assert len(full.nodes) == sum(_expected([out], list(model.named_parameters()))[0].values())
    (block,) = g.blocks
    assert block.repeats == 10
    # One (Linear, Tanh, weight, bias) block is drawn; the 9 others are not.
    assert len(block.node_ids) == 4 and block.hidden == 9 * 4
    assert len(g.nodes) == len(full.nodes) - 9 * 4
    names = [g.nodes[i].name for i in block.node_ids]
    assert sorted(names) == sorted(["Linear", "Tanh", "1.weight", "1.bias"])
    by_id = {n.id: n for n in g.nodes}
    for a, b in g.edges:  # the drawn graph is still connected input -> output
        assert by_id[a].depth > by_id[b].depth
    fig = g.draw()
    assert len([p for p in fig.axes[0].patches if p.get_gid() == "block"]) == 1
    assert [t.get_text().strip() for t in fig.axes[0].texts if t.get_gid() == "block-label"] == [
        "x 10"
    ]
    assert 'label="x 10"' in g.to_dot() and "subgraph cluster_0" in g.to_dot()


def test_two_repeats_are_not_collapsed():
    model = _deep(2)
    g = graph(model(mg.randn(4, 2)).sum(), params=model)
    assert g.blocks == []


def test_max_nodes_cuts_the_graph_and_says_so():
    x = mg.randn(5, requires_grad=True)
    y = x
    for i in range(300):
        y = y * 1.01 if i % 2 else y + 0.5
    g = graph(y.sum(), max_nodes=50, collapse=False)
    assert len(g.nodes) == 51  # 50 drawn, and one box for the rest
    more = g.nodes[-1]
    assert more.kind == "more" and g.left_out == 302 - 50
    assert f"{g.left_out} more nodes" in more.name
    assert "max_nodes=50" in g.note
    fig = g.draw()
    notes = [t.get_text() for t in fig.texts if t.get_gid() == "note"]
    assert notes and "max_nodes=50" in notes[0]
    # Collapsing alone keeps the same chain small: Add/Mul pairs repeat.
    assert len(graph(y.sum(), max_nodes=50).nodes) < 10


def test_checkpoint_sequential_marks_the_recomputed_segment():
    model = nn.Sequential(*[m for _ in range(4) for m in (nn.Linear(8, 8), nn.Tanh())])
    # (an input that wants a gradient: Linear keeps its weight only for the input's gradient)
    out = checkpoint_sequential(model, 2, mg.randn(4, 8, requires_grad=True)).sum()
    g = graph(out, params=model)
    ops = [n for n in g.nodes if n.kind == "op"]
    recomputed = [n for n in ops if n.segment is not None]
    # The first of the two segments (4 modules: Linear, Tanh, Linear, Tanh) is checkpointed.
    assert Counter(n.name for n in recomputed) == Counter({"Linear": 2, "Tanh": 2})
    assert {n.segment for n in recomputed} == {1}
    assert all(s.role == "recomputed" for n in recomputed for s in n.saved)
    assert "recomputed in backward (segment 1)" in recomputed[0].lines()
    # What the graph really keeps: the second segment's arrays; the first segment's are counted
    # apart, as recomputed. Linear saves its input and weight, Tanh its output: (4, 8) and (8, 8)
    # float32 arrays of 128 and 256 bytes.
    per_block = 128 + 256 + 128
    assert g.recomputed_bytes == 2 * per_block and g.saved_bytes == 2 * per_block
    footer = [t.get_text() for t in g.draw().texts if t.get_gid() == "note"][0]
    assert "recomputed in backward: 1.0 KiB" in footer
    out.backward()  # the segment's saves are handed out once in backward
    assert all(n.saved is None or n.saved == [] for n in graph(out, params=model).nodes)


def test_reentrant_checkpoint_is_one_box():
    model = nn.Sequential(nn.Linear(8, 8), nn.Tanh())
    out = mg.utils.checkpoint(model, mg.randn(4, 8), use_reentrant=True).sum()
    (node,) = [n for n in graph(out, params=model).nodes if n.segment == 0]
    assert "run again in backward" in node.note


def test_autocast_nodes_show_the_dtype_they_ran_in():
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 2))
    with mg.autocast("cpu", dtype=mg.bfloat16):
        logits = model(mg.randn(4, 8))
        loss = F.cross_entropy(logits, mg.tensor([0, 1, 0, 1]))
    g = graph(loss, params=model)
    layers = [n for n in g.nodes if n.name == "AutocastLinear"]  # autocast's form of Linear
    assert len(layers) == 2
    dtypes = {n.dtype for n in layers}
    assert dtypes == {str(logits.dtype).replace("minigenesis.", "")} == {"bfloat16"}
    assert loss.dtype == mg.float32 and g.nodes[0].dtype == "float32"
    legend = [t.get_text() for t in g.draw().legends[0].get_texts()]
    assert "op, bfloat16 output" in legend and "op, float32 output" in legend


def test_the_graph_of_a_backward_pass_can_be_drawn():
    a = mg.randn(3, requires_grad=True)
    (ga,) = mg.autograd.grad((a.tanh() * a).sum(), a, create_graph=True)
    g = graph(ga, params={"a": a})
    nodes, edges = _expected([ga], [("a", a)])
    assert Counter(n.name for n in g.nodes) == nodes and Counter(g.edge_names()) == edges
    assert "a" in nodes and sum(nodes.values()) > 3


def test_show_grad_writes_each_leafs_gradient_norm():
    model, _, loss = _mlp_step()
    loss.backward()
    g = graph(loss, params=model, show_grad=True)
    for n in g.nodes:
        if n.kind == "leaf":
            want = np.linalg.norm(dict(model.named_parameters())[n.name].grad.numpy())
            assert n.grad_norm == pytest.approx(want, rel=1e-6)
            assert f"grad norm {n.grad_norm:.3g}" in n.lines(show_grad=True)
        if n.kind == "op" and n.name == "Linear":
            assert "saved: freed by backward" in n.lines()


def test_several_outputs_are_all_drawn():
    a = mg.randn(3, requires_grad=True)
    y1, y2 = (a * 2).sum(), a.exp().sum()
    g = graph(y1, y2, params={"a": a})
    assert sum(n.is_output for n in g.nodes) == 2
    assert Counter(n.name for n in g.nodes) == _expected([y1, y2], [("a", a)])[0]


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="requires_grad"):
        graph(mg.randn(3))
    with pytest.raises(TypeError, match="not a Tensor"):
        graph(np.ones(3))
    with pytest.raises(ValueError, match="max_nodes"):
        graph(mg.randn(3, requires_grad=True) * 2, max_nodes=0)
    with pytest.raises(ValueError, match="at least one tensor"):
        graph()


def test_graph_and_plots_of_a_model_on_each_device(device):
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 3)).to(device)
    x = mg.randn(16, 2, device=device)
    loss = F.cross_entropy(model(x), mg.randint(0, 3, (16,), device=device))
    loss.backward(retain_graph=True)
    g = graph(loss, params=model, show_grad=True)
    first = next(n for n in g.nodes if n.name == "Linear" and n.shape == (16, 8))
    # x (for W's gradient) only: x wants no gradient, so W is not kept for it, as PyTorch
    assert sorted(s.nbytes for s in first.saved) == [16 * 2 * 4]
    for name, p in model.named_parameters():
        (leaf,) = [n for n in g.nodes if n.name == name]
        want = np.linalg.norm(p.grad.cpu().numpy().astype(np.float64))
        assert leaf.grad_norm == pytest.approx(want, rel=1e-6)
    assert len(_node_texts(g.draw())) == len(g.nodes)
    mg.viz.plot_grad_flow(model)
    weights = mg.softmax(mg.randn(2, 4, 4, device=device), dim=-1)
    mg.viz.plot_attention(weights, tokens=list("abcd"))
