"""Inputs for inventory_dp: seasonal truncated-normal demand and fixed cost parameters."""

import numpy as np


def generate(params: dict, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    horizon, dmax = int(params["horizon"]), int(params["max_demand"])
    t = np.arange(horizon)
    phase = rng.uniform(0.0, 2.0 * np.pi)
    mean = dmax * (0.35 + 0.15 * np.sin(2.0 * np.pi * t / 52.0 + phase))
    sd = dmax * rng.uniform(0.08, 0.15, horizon)
    d = np.arange(dmax + 1)
    pmf = np.exp(-0.5 * ((d[None, :] - mean[:, None]) / sd[:, None]) ** 2)
    pmf /= pmf.sum(axis=1, keepdims=True)
    return {
        "horizon": horizon, "max_inv": int(params["max_inv"]),
        "max_order": int(params["max_order"]), "max_demand": dmax,
        "demand_pmf": np.ascontiguousarray(pmf, dtype=np.float32).ravel(),
        "order_cost": 2.0, "fixed_cost": 50.0, "holding_cost": 0.5, "shortage_cost": 8.0,
    }
