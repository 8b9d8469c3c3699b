"""Does numpyro's MCMC.run / SVI.run / sample_posterior return before its JAX work is done?

Measured for the JAX307 labels on tbats-jax (bench/labels/fresh_c_review.tsv): each result is
`is_ready()` when the call returns, and `jax.block_until_ready` then waits 0.0 s, so a clock
stopped right after these calls measures the work. Needs numpyro (not a dependency):
`pip install --target /tmp/npy numpyro multipledispatch tqdm --no-deps`, then
`PYTHONPATH=/tmp/npy python bench/numpyro_sync_probe.py`.
"""

import time

import jax
import numpyro
import numpyro.distributions as dist
from numpyro.infer import MCMC, NUTS, SVI, Trace_ELBO
from numpyro.infer.autoguide import AutoNormal


def model(y=None):
    mu = numpyro.sample("mu", dist.Normal(0, 1))
    sigma = numpyro.sample("sigma", dist.HalfNormal(1))
    numpyro.sample("obs", dist.Normal(mu, sigma), obs=y)


def report(name, run):
    start = time.perf_counter()
    result = run()
    returned = time.perf_counter() - start
    ready = all(leaf.is_ready() for leaf in jax.tree.leaves(result))
    start = time.perf_counter()
    jax.block_until_ready(result)
    waited = time.perf_counter() - start
    print(f"{name}: returned after {returned:.3f} s, ready {ready}, then waited {waited:.4f} s")
    return result


def main():
    y = jax.random.normal(jax.random.PRNGKey(1), (2000,))
    mcmc = MCMC(NUTS(model), num_warmup=500, num_samples=2000, progress_bar=False)

    def run_mcmc():
        mcmc.run(jax.random.PRNGKey(0), y=y)
        return mcmc.get_samples()

    report("MCMC.run", run_mcmc)
    guide = AutoNormal(model)
    svi = SVI(model, guide, numpyro.optim.Adam(0.01), loss=Trace_ELBO())
    fitted = report(
        "SVI.run", lambda: svi.run(jax.random.PRNGKey(2), 3000, y=y, progress_bar=False)
    )
    report(
        "sample_posterior",
        lambda: guide.sample_posterior(jax.random.PRNGKey(3), fitted.params, sample_shape=(20000,)),
    )


if __name__ == "__main__":
    main()
