#!/bin/sh
# validate_cel.sh DRABENCH - `drabench validate` compiles and cost-checks every CEL selector of
# DeviceClasses, ResourceClaims and ResourceClaimTemplates, as the API server does at admission:
# a syntax error, a type error, an invalid regular expression literal in matches() and an
# estimated cost over the limit are errors at the expression's file:line:col (exit 2).
set -u
bin=$1
root=$(mktemp -d "${TMPDIR:-/tmp}/drabench-valcel-XXXXXX") || exit 1
trap 'rm -rf "$root"' EXIT
cd "$root" || exit 1
fail=0
cat > bad.yaml <<'YAML'
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: syntax
spec:
  selectors:
  - cel:
      expression: device.driver == 
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: regex
spec:
  selectors:
  - cel:
      expression: device.driver.matches("[a-")
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: costly
spec:
  spec:
    devices:
      requests:
      - name: r
        firstAvailable:
        - name: s
          deviceClassName: syntax
          selectors:
          - cel:
              expression: device.attributes['x'].all(d, device.attributes['x'].all(e, device.attributes['x'].all(f, device.attributes['x'].all(g, d.startsWith(e+f+g)))))
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: typed
spec:
  devices:
    requests:
    - name: r
      exactly:
        deviceClassName: syntax
        selectors:
        - cel:
            expression: device.driver + 1
YAML
"$bin" validate bad.yaml >out.txt 2>err.txt; rc=$?
[ "$rc" -eq 2 ] || { echo "FAIL: exit $rc, want 2"; fail=1; }
for re in \
    '^bad.yaml:8:19: error: DeviceClass/syntax: spec.selectors\[0\].cel.expression: compilation failed: .*:1:17: Syntax error' \
    '^bad.yaml:17:19: error: DeviceClass/regex: spec.selectors\[0\].cel.expression: compilation failed: .*invalid regular expression' \
    '^bad.yaml:33:27: error: ResourceClaimTemplate/costly: spec.spec.devices.requests\[0\].firstAvailable\[0\].selectors\[0\].cel.expression: too complex, exceeds cost limit' \
    '^bad.yaml:47:25: error: ResourceClaim/typed: spec.devices.requests\[0\].exactly.selectors\[0\].cel.expression: compilation failed: .*no matching overload' \
    ' 4 errors, 0 warnings$'; do
    grep -qE "$re" err.txt || { echo "FAIL: no line matching: $re"; fail=1; }
done
# the same expressions, compilable, pass
sed -e 's/device.driver == $/device.driver == "x"/' -e 's/matches("\[a-")/matches("[a-z]")/' \
    -e "s/device.attributes\['x'\].all(g, d.startsWith(e+f+g))/true/" \
    -e 's/device.driver + 1/device.driver + "1" == "x"/' bad.yaml > good.yaml
"$bin" validate good.yaml >out.txt 2>err.txt; rc=$?
[ "$rc" -eq 0 ] || { echo "FAIL: good.yaml exit $rc, want 0"; cat err.txt; fail=1; }
[ "$fail" -eq 0 ] && echo "ok"
[ "$fail" -eq 0 ] || cat err.txt
exit $fail
