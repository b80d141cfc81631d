#!/bin/sh
# alloc_schema.sh DRABENCH - `alloc --test` reads its cases strictly: an unknown key, a value of
# the wrong shape, an unknown outcome or a missing expectation make the case invalid (exit 2, the
# message names file:line:col and the key), never a pass (exit 0) or a failure (exit 1); an
# include that is not a regular file ("-" would read stdin) too.
set -u
bin=$1
root=$(mktemp -d "${TMPDIR:-/tmp}/drabench-schema-XXXXXX") || exit 1
trap 'rm -rf "$root"' EXIT
fail=0
cd "$root" || exit 1

objects='apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu
spec:
  selectors:
  - cel:
      expression: device.driver == "gpu.example.com"
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: slice
spec:
  driver: gpu.example.com
  pool: {name: pool, generation: 1, resourceSliceCount: 1}
  nodeName: node-1
  devices:
  - name: gpu-0
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: claim
spec:
  devices:
    requests:
    - name: r
      exactly: {deviceClassName: gpu}
---
apiVersion: drabench.dev/v1alpha1
kind: AllocationTest
metadata:
  name: schema
spec:
  node: node-1
  claims: [claim]'
mk() { printf '%s\n%s\n' "$objects" "$2" > "$1.yaml"; }
mk good '  expect:
    outcome: Allocated
    allocations:
      claim:
      - {request: r, driver: gpu.example.com, pool: pool, device: gpu-0}'
# a misspelt key would make a wrong expectation (device gpu-9) pass unchecked
mk misspelt '  expect:
    outcome: Allocated
    alocations:
      claim:
      - {request: r, driver: gpu.example.com, pool: pool, device: gpu-9}'
mk result-key '  expect:
    outcome: Allocated
    allocations:
      claim:
      - {request: r, driver: gpu.example.com, pool: pool, devcie: gpu-9}'
mk spec-key '  nod: node-2
  expect: {outcome: Allocated}'
mk maybe '  expect:
    outcome: Maybe'
mk no-outcome '  expect:
    errorContains: x'
mk no-expect ''
mk shape '  expect:
    outcome: Allocated
    allocations: [claim]'
mk include-stdin '  include: ["-"]
  expect: {outcome: Allocated}'
mk include-dir '  include: ["."]
  expect: {outcome: Allocated}'
mk wrong '  expect:
    outcome: Allocated
    allocations:
      claim:
      - {request: r, driver: gpu.example.com, pool: pool, device: gpu-9}'

check() { # check FILE WANT_EXIT REGEX
    "$bin" alloc --test "$1.yaml" >out.txt 2>err.txt; rc=$?
    if [ "$rc" -ne "$2" ] || ! grep -qE "$3" out.txt; then
        echo "FAIL $1: exit $rc (want $2)"; cat out.txt err.txt; fail=1
    else
        echo "ok $1"
    fi
}
check good 0 '^PASS schema$'
check wrong 1 'FAIL schema .*device gpu-0, expected gpu-9'
check misspelt 2 'invalid case: misspelt.yaml:[0-9]+:[0-9]+: unknown key "alocations" in spec.expect'
check result-key 2 'invalid case: result-key.yaml:[0-9]+:[0-9]+: unknown key "devcie" in spec.expect.allocations.claim\[0\]'
check spec-key 2 'invalid case: spec-key.yaml:[0-9]+:[0-9]+: unknown key "nod" in spec'
check maybe 2 'invalid case: maybe.yaml:[0-9]+:[0-9]+: spec.expect.outcome "Maybe" is none of'
check no-outcome 2 'spec.expect.outcome is missing'
check no-expect 2 'spec.expect is missing'
check include-stdin 2 'spec.include\[0\]: "-" is not a readable regular file'
check include-dir 2 'spec.include\[0\]: "." is not a readable regular file'
check shape 2 'spec.expect.allocations: must be a mapping, not a list'
# one invalid case among passing ones still makes the run invalid
"$bin" alloc --test good.yaml maybe.yaml >/dev/null 2>err.txt; rc=$?
if [ "$rc" -ne 2 ] || ! grep -q '1 passed, 0 failed, 1 invalid' err.txt; then
    echo "FAIL mixed: exit $rc"; cat err.txt; fail=1
fi
exit $fail
