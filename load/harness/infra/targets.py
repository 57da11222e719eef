"""`vtvr-harness targets SCENARIO MODE`: SCENARIO's request in MODE (a mode, floor, ladder-<rung>)
from the catalogue of the app at --app-url (GET /scenarios), with --param NAME=VALUE (DELAY, ...;
unset: defaults). Prints four lines for load/vegeta.sh and load/hey.sh (lib.sh vtvr_request):
method, path with query, a correct answer's status, body (empty: none)."""
from harness.infra import catalogue
from harness.infra.errors import Fatal

DEFAULT_APP_URL = "http://127.0.0.1:8080"   # as load/lib.sh vtvr_cli, which passes its APP_URL


def lines(req):
    """REQ as the four lines `targets` prints."""
    if "\n" in req.body or "\r" in req.body:
        raise Fatal("the catalogue's body spans lines; load/lib.sh vtvr_request reads one")
    return [req.method, req.path, str(req.status), req.body]


def run(args):
    catalogue.use(url=args.app_url or DEFAULT_APP_URL)
    params = dict(p.split("=", 1) for p in args.param or () if "=" in p)
    req = catalogue.table(catalogue.env_params(params)).lookup(args.mode, args.scenario)
    print("\n".join(lines(req)))
    return 0
