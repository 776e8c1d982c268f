"""d2l.ai's object-detection helpers: multibox_prior (anchor boxes from sizes and ratios via
torch.meshgrid(indexing='ij'), repeat_interleave and torch.stack), box_iou by broadcasting
boxes1[:, None, :2] against boxes2[:, :2] with clamp(min=0), box_corner_to_center and back,
assign_anchor_to_bbox (torch.full, argmax over a distance matrix with row/column discarding),
offset_boxes and offset_inverse, and non-maximum suppression with torch.argsort and
torch.nonzero; each checked against a NumPy loop."""
import numpy as np
import minigenesis as torch

torch.set_printoptions(2)


def box_corner_to_center(boxes):
    x1, y1, x2, y2 = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    w, h = x2 - x1, y2 - y1
    return torch.stack((cx, cy, w, h), axis=-1)


def box_center_to_corner(boxes):
    cx, cy, w, h = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
    x1, y1 = cx - 0.5 * w, cy - 0.5 * h
    x2, y2 = cx + 0.5 * w, cy + 0.5 * h
    return torch.stack((x1, y1, x2, y2), axis=-1)


dog_bbox, cat_bbox = [60.0, 45.0, 378.0, 516.0], [400.0, 112.0, 655.0, 493.0]
boxes = torch.tensor((dog_bbox, cat_bbox))
assert torch.equal(box_center_to_corner(box_corner_to_center(boxes)), boxes)


def multibox_prior(data, sizes, ratios):
    in_height, in_width = data.shape[-2:]
    device, num_sizes, num_ratios = data.device, len(sizes), len(ratios)
    boxes_per_pixel = num_sizes + num_ratios - 1
    size_tensor = torch.tensor(sizes, device=device)
    ratio_tensor = torch.tensor(ratios, device=device)
    offset_h, offset_w = 0.5, 0.5
    steps_h = 1.0 / in_height
    steps_w = 1.0 / in_width
    center_h = (torch.arange(in_height, device=device) + offset_h) * steps_h
    center_w = (torch.arange(in_width, device=device) + offset_w) * steps_w
    shift_y, shift_x = torch.meshgrid(center_h, center_w, indexing="ij")
    shift_y, shift_x = shift_y.reshape(-1), shift_x.reshape(-1)
    w = torch.cat((size_tensor * torch.sqrt(ratio_tensor[0]), sizes[0] * torch.sqrt(ratio_tensor[1:]))) * in_height / in_width
    h = torch.cat((size_tensor / torch.sqrt(ratio_tensor[0]), sizes[0] / torch.sqrt(ratio_tensor[1:])))
    anchor_manipulations = torch.stack((-w, -h, w, h)).T.repeat(in_height * in_width, 1) / 2
    out_grid = torch.stack([shift_x, shift_y, shift_x, shift_y], dim=1).repeat_interleave(boxes_per_pixel, dim=0)
    output = out_grid + anchor_manipulations
    return output.unsqueeze(0)


h, w = 6, 8
X = torch.rand(size=(1, 3, h, w))
Y = multibox_prior(X, sizes=[0.75, 0.5, 0.25], ratios=[1, 2, 0.5])
assert Y.shape == (1, h * w * 5, 4)
boxes = Y.reshape(h, w, 5, 4)
# NumPy: the first anchor at pixel (2, 3)
cy, cx = (2 + 0.5) / h, (3 + 0.5) / w
ref = np.array([cx - 0.75 * h / w / 2, cy - 0.75 / 2, cx + 0.75 * h / w / 2, cy + 0.75 / 2])
assert np.allclose(boxes[2, 3, 0].numpy(), ref, atol=1e-6)
ref = np.array([cx - 0.75 * np.sqrt(2) * h / w / 2, cy - 0.75 / np.sqrt(2) / 2, cx + 0.75 * np.sqrt(2) * h / w / 2, cy + 0.75 / np.sqrt(2) / 2])
assert np.allclose(boxes[2, 3, 3].numpy(), ref, atol=1e-6)
print("anchor", boxes[2, 3, 0, :])


def box_iou(boxes1, boxes2):
    box_area = lambda boxes: ((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1]))
    areas1 = box_area(boxes1)
    areas2 = box_area(boxes2)
    inter_upperlefts = torch.max(boxes1[:, None, :2], boxes2[:, :2])
    inter_lowerrights = torch.min(boxes1[:, None, 2:], boxes2[:, 2:])
    inters = (inter_lowerrights - inter_upperlefts).clamp(min=0)
    inter_areas = inters[:, :, 0] * inters[:, :, 1]
    union_areas = areas1[:, None] + areas2 - inter_areas
    return inter_areas / union_areas


def np_iou(a, b):
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


torch.manual_seed(0)
b1 = box_center_to_corner(torch.cat([torch.rand(7, 2), torch.rand(7, 2) * 0.5 + 0.05], 1))
b2 = box_center_to_corner(torch.cat([torch.rand(5, 2), torch.rand(5, 2) * 0.5 + 0.05], 1))
iou = box_iou(b1, b2)
ref = np.array([[np_iou(a, b) for b in b2.tolist()] for a in b1.tolist()])
assert np.allclose(iou.numpy(), ref, atol=1e-6)


def assign_anchor_to_bbox(ground_truth, anchors, device, iou_threshold=0.5):
    num_anchors, num_gt_boxes = anchors.shape[0], ground_truth.shape[0]
    jaccard = box_iou(anchors, ground_truth)
    anchors_bbox_map = torch.full((num_anchors,), -1, dtype=torch.long, device=device)
    max_ious, indices = torch.max(jaccard, dim=1)
    anc_i = torch.nonzero(max_ious >= iou_threshold).reshape(-1)
    box_j = indices[max_ious >= iou_threshold]
    anchors_bbox_map[anc_i] = box_j
    col_discard = torch.full((num_anchors,), -1)
    row_discard = torch.full((num_gt_boxes,), -1)
    for _ in range(num_gt_boxes):
        max_idx = torch.argmax(jaccard)
        box_idx = (max_idx % num_gt_boxes).long()
        anc_idx = (max_idx / num_gt_boxes).long()
        anchors_bbox_map[anc_idx] = box_idx
        jaccard[:, box_idx] = col_discard
        jaccard[anc_idx, :] = row_discard
    return anchors_bbox_map


ground_truth = torch.tensor([[0, 0.1, 0.08, 0.52, 0.92], [1, 0.55, 0.2, 0.9, 0.88]])
anchors = torch.tensor([[0, 0.1, 0.2, 0.3], [0.15, 0.2, 0.4, 0.4], [0.63, 0.05, 0.88, 0.98],
                        [0.66, 0.45, 0.8, 0.8], [0.57, 0.3, 0.92, 0.9]])
amap = assign_anchor_to_bbox(ground_truth[:, 1:], anchors, "cpu")
print("anchor map", amap)
assert amap.tolist() == [-1, 0, 1, -1, 1]


def offset_boxes(anchors, assigned_bb, eps=1e-6):
    c_anc = box_corner_to_center(anchors)
    c_assigned_bb = box_corner_to_center(assigned_bb)
    offset_xy = 10 * (c_assigned_bb[:, :2] - c_anc[:, :2]) / c_anc[:, 2:]
    offset_wh = 5 * torch.log(eps + c_assigned_bb[:, 2:] / c_anc[:, 2:])
    return torch.cat([offset_xy, offset_wh], axis=1)


def offset_inverse(anchors, offset_preds):
    anc = box_corner_to_center(anchors)
    pred_bbox_xy = (offset_preds[:, :2] * anc[:, 2:] / 10) + anc[:, :2]
    pred_bbox_wh = torch.exp(offset_preds[:, 2:] / 5) * anc[:, 2:]
    pred_bbox = torch.cat((pred_bbox_xy, pred_bbox_wh), axis=1)
    return box_center_to_corner(pred_bbox)


gt = ground_truth[amap.clamp(min=0), 1:]
assert torch.allclose(offset_inverse(anchors, offset_boxes(anchors, gt)), gt, atol=1e-5)


def nms(boxes, scores, iou_threshold):
    B = torch.argsort(scores, dim=-1, descending=True)
    keep = []
    while B.numel() > 0:
        i = B[0]
        keep.append(i)
        if B.numel() == 1:
            break
        iou = box_iou(boxes[i, :].reshape(-1, 4), boxes[B[1:], :].reshape(-1, 4)).reshape(-1)
        inds = torch.nonzero(iou <= iou_threshold).reshape(-1)
        B = B[inds + 1]
    return torch.tensor(keep, device=boxes.device)


def np_nms(boxes, scores, thr):
    order = list(np.argsort(-scores, kind="stable"))
    keep = []
    while order:
        i = order.pop(0)
        keep.append(i)
        order = [j for j in order if np_iou(boxes[i], boxes[j]) <= thr]
    return keep


anchors = torch.tensor([[0.1, 0.08, 0.52, 0.92], [0.08, 0.2, 0.56, 0.95], [0.15, 0.3, 0.62, 0.91], [0.55, 0.2, 0.9, 0.88]])
scores = torch.tensor([0.9, 0.8, 0.7, 0.9 * 0.9])
keep = nms(anchors, scores, 0.5)
assert keep.tolist() == [0, 3]
many = box_center_to_corner(torch.cat([torch.rand(40, 2), torch.rand(40, 2) * 0.4 + 0.05], 1))
sc = torch.rand(40)
keep = nms(many, sc, 0.3)
assert keep.tolist() == np_nms(many.numpy().tolist(), sc.numpy(), 0.3)
print("kept", len(keep), "of 40 boxes")
