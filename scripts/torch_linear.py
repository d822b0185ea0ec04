"""scripts/torch_reference.py's `linear`: the chapter's Linear(in, 1) layer trained as D2L trains it."""
import numpy as np
import torch

from torch_harness import DTYPES, rel_err, row, verdict


def linear(cfg, ctx, dtypes):
    """Linear(in, 1) trained by minibatch SGD (autograd and torch.optim.SGD, batches in order),
    the data copied to the device per batch or resident there, the loss read with .item() per
    batch or logged on the device; and the `parameters` rule: one batch's forward pass."""
    dev, bench = ctx["device"], ctx["bench"]
    d, samples, bsz, epochs, lr = (cfg[k] for k in ("in_features", "samples", "batch_size", "epochs", "lr"))
    steps = epochs * -(-samples // bsz)
    out = []
    for dtype in dtypes:
        g = torch.Generator().manual_seed(2024)
        x = torch.rand(samples, d, generator=g, dtype=DTYPES[dtype]) * 2 - 1
        w_true = torch.tensor([2.0 if j % 2 == 0 else -3.4 for j in range(d)], dtype=DTYPES[dtype])
        y = (x @ w_true + 4.2 + (torch.rand(samples, generator=g, dtype=DTYPES[dtype]) * 2 - 1) * 0.01)[:, None]
        xd, yd = x.to(dev), y.to(dev)
        net = torch.nn.Linear(d, 1).to(dev, DTYPES[dtype])
        torch.manual_seed(7)
        torch.nn.init.normal_(net.weight, 0, 0.01)
        torch.nn.init.zeros_(net.bias)
        w0, b0 = net.weight.detach().clone(), net.bias.detach().clone()
        size = x.element_size()
        base = {"batch_size": bsz, "samples": samples, "in_features": d, "kernel": "torch"}
        state = {}
        with torch.no_grad():
            times = bench.time(lambda: state.update(out=net(xd[:bsz])))
        want = x[:bsz].double().numpy() @ w0.cpu().double().numpy().T + b0.cpu().double().numpy()
        out.append(row("linear", "parameters", {"rule": "parameters", "data": "-", "loss": "-", **base},
                       ctx["name"], dtype, times, (0, bsz * (2 * d + 1)),
                       verdict(rel_err(state["out"].cpu().numpy(), want), dtype)))
        # The host's own SGD in float64 from the same data and start: what every mode must reach.
        xn, yn = x.double().numpy(), y.double().numpy()[:, 0]
        wn, bn = w0.cpu().double().numpy()[0].copy(), float(b0.cpu()[0])
        for _ in range(epochs):
            for i in range(0, samples, bsz):
                err = xn[i:i + bsz] @ wn + bn - yn[i:i + bsz]
                wn, bn = wn - lr * xn[i:i + bsz].T @ err / len(err), bn - lr * err.mean()
        for copy in (True, False):
            for sync in (True, False):
                def train():
                    with torch.no_grad():
                        net.weight.copy_(w0)
                        net.bias.copy_(b0)
                    opt = torch.optim.SGD(net.parameters(), lr=lr)
                    losses = [] if sync else torch.empty(steps, dtype=DTYPES[dtype], device=dev)
                    step = 0
                    for _ in range(epochs):
                        for i in range(0, samples, bsz):
                            xb, yb = (x[i:i + bsz].to(dev), y[i:i + bsz].to(dev)) if copy else (xd[i:i + bsz],
                                                                                                  yd[i:i + bsz])
                            loss = ((net(xb) - yb) ** 2).sum() / (2 * len(xb))
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
                ok, detail = verdict(rel_err(got, np.concatenate([wn, [bn]])), dtype)
                data, loss = "per_batch_copy" if copy else "on_device", "sync_each_batch" if sync else "on_device"
                work = ((epochs * samples * (d + 1) if copy else 0) * size + steps * size,
                        epochs * samples * (4 * d + 5) + steps * 2 * (d + 1))
                out.append(row("linear", f"train {data} {loss}", {"rule": "train", "data": data, "loss": loss, **base},
                               ctx["name"], dtype, times, work, (ok, detail + " (final w, b vs numpy SGD)")))
    return out
