"""`/openapi.json` against the app: a valid OpenAPI 3.1 document, every route the app serves in it
with its method, nothing in it the app does not serve, every query parameter a route reads
described; a route without an operation stops the app from being built; and the review page's
static files (`@page` handlers) are served but left out."""

from __future__ import annotations

import re
import urllib.request

import pytest
from aiohttp import web
from openapi_spec_validator import validate

from consumers.api.openapi import UndocumentedRoute, document, is_page, page

HTTP_METHODS = {"get", "put", "post", "delete", "patch", "head", "options", "trace"}


def test_the_document_is_valid_openapi_3_1_and_served_without_a_token(make_api):
    api = make_api(api_token="t0ken-for-the-tests-0123")
    status, body = api.get("/openapi.json")
    assert status == 200 and body["openapi"] == "3.1.0"
    validate(body)
    assert body["info"]["version"] == document(api.app)["info"]["version"] != ""
    assert api.get("/scopes")[0] == 401, "the token is still needed everywhere else"


def test_every_route_is_documented_and_every_documented_route_exists(api):
    body = api.get("/openapi.json")[1]
    documented = {(path, method) for path, ops in body["paths"].items() for method in ops if method in HTTP_METHODS}
    routes = [r for r in api.app.router.routes() if r.method != "HEAD"]
    served = {(r.resource.canonical, r.method.lower()) for r in routes if not is_page(r.handler)}
    assert served - documented == set(), "served but not documented"
    assert documented - served == set(), "documented but not served"
    assert len(served) >= 13
    # And from outside: each documented operation reaches a handler (no routing 404, no 405).
    values = {"tenant": "acme", "agent": "bot", "subject": "u1", "memory_id": "m1", "generation": "1"}
    for path, method in sorted(documented):
        concrete = re.sub(r"\{(\w+)\}", lambda m: values.get(m.group(1), "approve"), path)
        status, answer = api.request(method.upper(), concrete, {} if method != "get" else None)
        assert status != 405 and answer.get("error") != "Not Found", (method, path, status, answer)


def test_every_path_parameter_is_described_and_parameters_have_descriptions(api):
    body = api.get("/openapi.json")[1]
    for path, ops in body["paths"].items():
        for method, op in ops.items():
            names = {p["name"] for p in op["parameters"] if p["in"] == "path"}
            assert names == set(_placeholders(path)), (method, path)
            for param in op["parameters"]:
                assert param["description"] and param["schema"], (method, path, param["name"])
            assert op["summary"] and op["responses"], (method, path)


def test_the_limits_a_route_enforces_are_in_the_document(api):
    ops = api.get("/openapi.json")[1]["paths"]
    search = {p["name"]: p for p in ops["/scopes/{tenant}/{agent}/{subject}/memories/search"]["get"]["parameters"]}
    assert search["k"]["schema"]["maximum"] == 100 and search["q"]["required"] is True
    assert {"tier", "origin", "consolidated", "created_after", "meta.{key}"} <= set(search)
    context = {p["name"]: p for p in ops["/scopes/{tenant}/{agent}/{subject}/context"]["get"]["parameters"]}
    assert context["budget_tokens"]["schema"]["maximum"] == 100_000


def test_the_review_pages_files_are_served_but_not_in_the_document(make_api):
    api = make_api(api_token="t0ken-for-the-tests-0123")
    pages = {r.resource.canonical for r in api.app.router.routes() if r.method == "GET" and is_page(r.handler)}
    assert pages == {"/ui", "/ui/", "/ui/{name}"}
    assert not any(path.startswith("/ui") for path in api.get("/openapi.json")[1]["paths"])
    with urllib.request.urlopen(f"{api.url}/ui/", timeout=30) as answer:  # no token: a page load needs none
        assert answer.status == 200 and answer.headers.get_content_type() == "text/html"


def test_a_page_handler_is_left_out_and_needs_no_operation():
    async def handler(request: web.Request) -> web.Response:
        return web.Response(text="<html></html>", content_type="text/html")

    app = web.Application()
    app.add_routes([web.get("/ui/", page(handler))])
    assert document(app)["paths"] == {}


def test_an_undocumented_route_is_refused(api):
    async def handler(request: web.Request) -> web.Response:
        return web.json_response({})

    app = web.Application()
    app.add_routes([web.get("/scopes/{tenant}/{agent}/{subject}/new", handler)])
    with pytest.raises(UndocumentedRoute, match="GET /scopes/{tenant}/{agent}/{subject}/new has no OpenAPI operation"):
        document(app)


def _placeholders(path: str) -> list[str]:
    return re.findall(r"\{(\w+)\}", path)
