#!/bin/sh
# alloc_budget.sh DRABENCH - bounded work in `drabench alloc`:
#  - 13 of 12 devices under 1.35 (permutations) and 32 of 31 under 1.36 (combinations) end with
#    Fatal "filter operation aborted" under the default step budget (1000000), well within the
#    test timeout (unbounded they run for hours);
#  - --max-steps N sets the budget (the message names it), --max-steps 0 / bad values;
#  - pool gathering is linear: one pool of 400 slices x 128 devices allocates within 60 s even
#    under sanitizers (it took minutes when duplicate names were checked pairwise).
set -u
bin=$1
root=$(mktemp -d "${TMPDIR:-/tmp}/drabench-budget-XXXXXX") || exit 1
trap 'rm -rf "$root"' EXIT
fail=0
cd "$root" || exit 1

cluster() { # cluster DEVICES COUNT SLICES: class, SLICES slices of DEVICES devices, claim of COUNT
    awk -v nd="$1" -v cnt="$2" -v ns="$3" 'BEGIN {
      printf "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: gpu\nspec:\n  selectors:\n  - cel:\n      expression: device.driver == \"gpu.example.com\"\n"
      for (s = 0; s < ns; s++) {
        printf "---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata:\n  name: slice-%d\nspec:\n  driver: gpu.example.com\n  pool:\n    name: pool\n    generation: 1\n    resourceSliceCount: %d\n  nodeName: node-1\n  devices:\n", s, ns
        for (i = 0; i < nd; i++) printf "  - name: gpu-%d-%d\n", s, i
      }
      printf "---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: claim\nspec:\n  devices:\n    requests:\n    - name: r\n      exactly:\n        deviceClassName: gpu\n        allocationMode: ExactCount\n        count: %d\n", cnt
    }'
}
cluster 12 13 1 > c13of12.yaml
cluster 31 32 1 > c32of31.yaml
cluster 128 1 400 > big-pool.yaml

check() { # check NAME WANT_EXIT REGEX CMD...
    name=$1 want=$2 re=$3; shift 3
    "$@" >out.txt 2>err.txt; rc=$?
    if [ "$rc" -ne "$want" ] || ! grep -qE "$re" err.txt; then
        echo "FAIL $name: exit $rc (want $want)"; tail -5 err.txt; fail=1
    else
        echo "ok $name"
    fi
}
fatal='claim claim: Fatal: filter operation aborted: search budget of'
check 13of12-1.35 1 "$fatal 1000000 steps" timeout 300 "$bin" alloc -f c13of12.yaml --release 1.35
check 32of31-1.36 1 "$fatal 1000000 steps" timeout 300 "$bin" alloc -f c32of31.yaml --release 1.36
check max-steps 1 "$fatal 5000 steps" "$bin" alloc -f c13of12.yaml --release 1.35 --max-steps 5000
check fast-max-steps 1 "$fatal 5000 steps" "$bin" alloc -f c13of12.yaml --release 1.35 -A fast --max-steps 5000
check bad-max-steps 2 "max-steps" "$bin" alloc -f c13of12.yaml --max-steps 12x
check negative-max-steps 2 "max-steps" "$bin" alloc -f c13of12.yaml --max-steps -1
check big-pool 0 "claim claim: allocated on node-1" timeout 60 "$bin" alloc -f big-pool.yaml
exit $fail
