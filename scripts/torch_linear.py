"""scripts/torch_reference.py's `linear`: the chapter's Linear(in, 1) layer trained as D2L trains it.
bfloat16 and float16 train as miniGPU trains them, the way mixed-precision training does: data
stored in the 16-bit type, float32 master weights, the forward pass under torch.autocast (which
rounds the weights to the 16-bit type for the product), the loss in float32."""
import contextlib

import numpy as np
import torch

from torch_harness import DTYPES, rel_err, row, verdict

# 16-bit rows against numpy's SGD that rounds its forward weights: 8 units of roundoff, as miniGPU
# allows (ops/linear_check.hpp), where the forward weights may round to neighbouring values.
MIXED_TOLERANCE = {"bfloat16": 8 * 2.0 ** -8, "float16": 8 * 2.0 ** -11}


def linear(cfg, ctx, dtypes):
    """Linear(in, 1) trained by minibatch SGD (autograd and torch.optim.SGD, batches in order),
    the data copied to the device per batch or resident there, the loss read with .item() per
    batch or logged on the device; and the `parameters` rule: one batch's forward pass."""
    dev, bench = ctx["device"], ctx["bench"]
    d, samples, bsz, epochs, lr = (cfg[k] for k in ("in_features", "samples", "batch_size", "epochs", "lr"))
    steps = epochs * -(-samples // bsz)
    out = []
    for dtype in dtypes:
        base = {"batch_size": bsz, "samples": samples, "in_features": d, "kernel": "torch"}
        low = dtype in MIXED_TOLERANCE
        store, master = DTYPES[dtype], torch.float32 if low else DTYPES[dtype]
        if low and dev.type == "cpu" and dtype == "float16":  # PyTorch 1.13: no float16 autocast on the CPU
            out += [row("linear", f"train {data} {loss}", {"rule": "train", "data": data, "loss": loss, **base},
                        ctx["name"], dtype, skipped=f"PyTorch {torch.__version__} has no float16 autocast on the CPU")
                    for data in ("per_batch_copy", "on_device") for loss in ("sync_each_batch", "on_device")]
            continue
        g = torch.Generator().manual_seed(2024)
        x = (torch.rand(samples, d, generator=g, dtype=master) * 2 - 1).to(store)
        w_true = torch.tensor([2.0 if j % 2 == 0 else -3.4 for j in range(d)], dtype=master)
        y = ((x.to(master) @ w_true + 4.2 + (torch.rand(samples, generator=g, dtype=master) * 2 - 1) * 0.01)
             .to(store)[:, None])
        xd, yd = x.to(dev), y.to(dev)
        net = torch.nn.Linear(d, 1).to(dev, master)
        torch.manual_seed(7)
        torch.nn.init.normal_(net.weight, 0, 0.01)
        torch.nn.init.zeros_(net.bias)
        w0, b0 = net.weight.detach().clone(), net.bias.detach().clone()
        size, loss_size = x.element_size(), torch.empty(0, dtype=master).element_size()
        state = {}
        if not low:  # 16-bit data keeps float32 parameters: float32's row checks their rules
            with torch.no_grad():
                times = bench.time(lambda: state.update(out=net(xd[:bsz])))
            want = x[:bsz].double().numpy() @ w0.cpu().double().numpy().T + b0.cpu().double().numpy()
            out.append(row("linear", "parameters", {"rule": "parameters", "data": "-", "loss": "-", **base},
                           ctx["name"], dtype, times, (0, bsz * (2 * d + 1)),
                           verdict(rel_err(state["out"].cpu().numpy(), want), dtype)))
        # The host's own SGD in float64 from the same data and start (its forward weights rounded
        # to the 16-bit type as autocast rounds them): what every mode must reach.
        xn, yn = x.double().numpy(), y.double().numpy()[:, 0]
        wn, bn = w0.cpu().double().numpy()[0].copy(), float(b0.cpu()[0])
        for _ in range(epochs):
            for i in range(0, samples, bsz):
                wf = torch.from_numpy(wn).to(master).to(store).double().numpy()
                err = xn[i:i + bsz] @ wf + bn - yn[i:i + bsz]
                wn, bn = wn - lr * xn[i:i + bsz].T @ err / len(err), bn - lr * err.mean()
        for copy in (True, False):
            for sync in (True, False):
                def train():
                    with torch.no_grad():
                        net.weight.copy_(w0)
                        net.bias.copy_(b0)
                    opt = torch.optim.SGD(net.parameters(), lr=lr)
                    losses = [] if sync else torch.empty(steps, dtype=master, device=dev)
                    step = 0
                    for _ in range(epochs):
                        for i in range(0, samples, bsz):
                            xb, yb = (x[i:i + bsz].to(dev), y[i:i + bsz].to(dev)) if copy else (xd[i:i + bsz],
                                                                                                  yd[i:i + bsz])
                            with torch.autocast(dev.type, dtype=store) if low else contextlib.nullcontext():
                                pred = net(xb)
                            loss = ((pred.to(master) - yb.to(master)) ** 2).sum() / (2 * len(xb))
                            opt.zero_grad()
                            loss.backward()
                            opt.step()
                            if sync:
                                losses.append(loss.item())
                            else:
                                losses[step] = loss.detach()
                            step += 1
                    state["losses"] = losses if sync else losses.cpu()
                times = bench.time(train)
                got = np.concatenate([net.weight.detach().cpu().double().numpy()[0],
                                      [float(net.bias.detach().cpu()[0])]])
                err = rel_err(got, np.concatenate([wn, [bn]]))
                ok, detail = ((err <= MIXED_TOLERANCE[dtype], f"max rel err {err:.2g} vs numpy "
                               f"(tol {MIXED_TOLERANCE[dtype]:g}, mixed precision)") if low else verdict(err, dtype))
                data, loss = "per_batch_copy" if copy else "on_device", "sync_each_batch" if sync else "on_device"
                work = ((epochs * samples * (d + 1) if copy else 0) * size + steps * loss_size,
                        epochs * samples * (4 * d + 5) + steps * 2 * (d + 1))
                out.append(row("linear", f"train {data} {loss}", {"rule": "train", "data": data, "loss": loss, **base},
                               ctx["name"], dtype, times, work, (ok, detail + " (final w, b vs numpy SGD)")))
    return out
