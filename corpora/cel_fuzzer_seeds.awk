# cel_fuzzer_seeds.awk - write every expression of dra-expressions.tsv (column 1, unescaped:
# \\ \t \n \r) to OUT/tsv-<row> as a cel_fuzzer seed. Usage: awk -v OUT=dir -f this.awk TSV
BEGIN { FS = "\t" }
NR > 1 {
    s = $1; r = ""
    for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (c == "\\" && i < length(s)) {
            i++; d = substr(s, i, 1)
            if (d == "n") r = r "\n"; else if (d == "t") r = r "\t"; else if (d == "r") r = r "\r"; else r = r d
        } else r = r c
    }
    f = sprintf("%s/tsv-%03d", OUT, NR)
    printf "%s", r > f
    close(f)
}
