"""Writes a compose shape of deploy/compose as this machine can run it (test/container/compose.sh says why).

The committed compose.yaml with every service on the host's network, each Formgate instance on
loopback ports of its own and, in the PostgreSQL shape, the postgres and redis services taken out
(the host's own PostgreSQL and Redis stand in, on a fresh database and a Redis prefix of the
test's own) and Caddy on free ports, balancing over the instances' ports.
Usage: compose-for-host.py IN OUT, with the values in the environment.
"""
import copy
import os
import sys

import yaml

source, target = sys.argv[1], sys.argv[2]
env = os.environ
with open(source) as f:
    compose = yaml.safe_load(f)
services = compose["services"]
postgres_shape = "postgres" in services
for name in ("postgres", "redis"):
    services.pop(name, None)
for name, service in list(services.items()):
    service = copy.deepcopy(service)  # formgate-1 and formgate-2 are one YAML anchor
    service["network_mode"] = "host"
    service.pop("ports", None)
    depends = {k: v for k, v in service.get("depends_on", {}).items() if k in services}
    if depends:
        service["depends_on"] = depends
    else:
        service.pop("depends_on", None)
    environment = service.setdefault("environment", {})
    if name.startswith("formgate"):
        n = name.rsplit("-", 1)[1] if "-" in name else "1"
        environment.update(
            FORMGATE_HOST="127.0.0.1",
            FORMGATE_PORT=env[f"API_PORT_{n}"],
            FORMGATE_SUBMIT_PORT=env[f"SUBMIT_PORT_{n}"],
        )
    if name.startswith("formgate-") and postgres_shape:
        environment.update(
            FORMGATE_DATABASE_URL=env["TEST_DATABASE_URL"],
            FORMGATE_REDIS_URL="redis://127.0.0.1:6379",
            FORMGATE_REDIS_PREFIX=env["TEST_REDIS_PREFIX"],
            FORMGATE_PUBLIC_URL=f"https://{env['FORMS_DOMAIN']}:{env['HTTPS_PORT']}",
            FORMGATE_SUBMIT_URL=f"https://{env['SUBMIT_DOMAIN']}:{env['HTTPS_PORT']}",
        )
    elif name == "caddy":
        environment.update(
            CADDY_ADMIN=f"127.0.0.1:{env['CADDY_ADMIN_PORT']}",
            CADDY_HTTP_PORT=env["HTTP_PORT"],
            CADDY_HTTPS_PORT=env["HTTPS_PORT"],
            DASHBOARD_UPSTREAMS=f"127.0.0.1:{env['API_PORT_1']} 127.0.0.1:{env['API_PORT_2']}",
            SUBMIT_UPSTREAMS=f"127.0.0.1:{env['SUBMIT_PORT_1']} 127.0.0.1:{env['SUBMIT_PORT_2']}",
        )
    services[name] = service
compose["volumes"] = {k: v for k, v in compose.get("volumes", {}).items() if k != "postgres-data"}
compose.pop("x-formgate", None)
with open(target, "w") as f:
    yaml.safe_dump(compose, f, sort_keys=False)
