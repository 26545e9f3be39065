"""results*.jsonl → markdown rows. full = CPU per packet handled (sent+received) × 100 packets a second."""

import json, sys

for path in sys.argv[1:]:
    for l in open(path):
        r = json.loads(l)
        if (
            "srv_us_pkt" not in r
        ):  # early runs: derive from the delivered shares (server handles srv_rx + cli_rx)
            share = (r["srv_rx"] + r["cli_rx"]) / 2
            r["srv_us_pkt"] = r["server_ms"] * 10 / share
            r["cli_us_pkt"] = r["client_ms"] * 10 / share
        st = r["stack"] + (" (1 UDP port)" if r.get("mux") not in (None, "0") else "")
        eng = f"{r['engine_ms']:.2f}" if r.get("engine_ms") is not None else "–"
        print(
            f"| {st} | {r['N']} | {r['load'].split(' -> ')[0].split('/')[0]}–{r['load'].split(' -> ')[1].split('/')[0]} "
            f"| {r['server_ms']:.1f} ({r['srv_us_pkt'] / 10:.1f}) | {r['client_ms']:.1f} ({r['cli_us_pkt'] / 10:.1f}) | {eng} "
            f"| {r['srv_rx']:.2f} / {r['cli_rx']:.2f} | {r.get('srv_tx', float('nan')):.2f} / {r.get('cli_tx', float('nan')):.2f} |"
        )
