"""Examples for jaxmarl 0.2.0 (JaxNav), as its README and the modules' own `__main__` blocks use it.

Run by bench/fix_share.py --examples as `--examples-from` (cwd: the package copy, which is on
PYTHONPATH): discrete-action episodes, the BARN map generator, the UED level mutator and the
shortest-path helper, each called a few times with ordinary arguments. `GridMapFromBuffer`
("Super old code beware") is left out: its `sample_scenario` raises for every layout of test
cases (`jnp.concatenate` of a 2-D case with a 1-D theta).
"""

import jax
import jax.numpy as jnp
from jaxmarl.environments.jaxnav.jaxnav_env import JaxNav
from jaxmarl.environments.jaxnav.jaxnav_graph_utils import shortest_path_len
from jaxmarl.environments.jaxnav.jaxnav_ued_utils import make_level_mutator
from jaxmarl.environments.jaxnav.maps.grid_map import GridMapBarn

key = jax.random.PRNGKey(0)

# Discrete actions: `discrete_act_map` turns action indices into (v, w) commands.
for num_agents in (2, 3):
    env = JaxNav(num_agents=num_agents, act_type="Discrete", lidar_num_beams=20)
    key, reset_key = jax.random.split(key)
    obs, state = env.reset(reset_key)
    for _ in range(3):
        key, act_key, step_key = jax.random.split(key, 3)
        actions = {a: jax.random.randint(act_key, (), 0, 15) for a in env.agents}
        obs, state, reward, done, info = env.step(step_key, state, actions)

    # UED: flip walls and move goals of the level just played.
    mutate = make_level_mutator(max_num_edits=4, map=env._map_obj)
    key, mutate_key = jax.random.split(key)
    mutate(mutate_key, state, 2)

# BARN-style maps.
barn = GridMapBarn(num_agents=1, rad=0.3, map_size=(30, 30))
for seed in range(2):
    barn.sample_test_case(jax.random.PRNGKey(seed))

# Shortest paths on a small grid (`grid_to_graph` builds its adjacency matrix).
grid = jnp.zeros((5, 5), bool).at[2, 1:4].set(True)
shortest_path_len(grid, jnp.array([0, 0]), jnp.array([4, 4]))
print("jaxmarl examples ran")
