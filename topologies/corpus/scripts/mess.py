import csv, json, subprocess, collections, io
REPO='/work/.mirror/bsc-mem+Mess-Results/repo'
COMMIT='16ab1d600a5145d5547d85a9b4f891e100fece04'
def show(p): return subprocess.check_output(['git','-C',REPO,'show',f'HEAD:{p}']).decode()
systems = {
 'CTE-AMD': dict(id='cte-amd-epyc7742-1s', sysdir='Systems/CTE-AMD',
   machine='BSC CTE-AMD cluster node, AMD EPYC 7742 (Zen 2, Rome), as listed by the Mess-Results README',
   spec={
    'sockets': {'value': 1, 'source': 'S1 (README System Overview: Sockets 1)'},
    'cpu_model': {'value': 'AMD EPYC 7742', 'source': 'S1'},
    'microarchitecture': {'value': 'Zen 2', 'source': 'S1'},
    'cores_per_socket': {'value': 64, 'source': 'S1 (Cores / Socket 64)'},
    'frequency_ghz': {'value': 2.25, 'source': 'S1 (Frequency (GHz) 2.25)'},
    'dies_per_socket': {'value': '8 CCDs + 1 IO die; each CCD = 2 CCX of 4 cores', 'source': 'S3'},
    'l2_per_core_kib': {'value': 512, 'source': 'S3 (each Zen2 core has ... 512KB 8-way L2 cache)'},
    'l3_per_ccx_mib': {'value': 16, 'source': 'S3 (Each CCX has 4 Zen2 cores and 16MB of L3 cache)'},
    'memory_kind': {'value': 'DDR4', 'source': 'S1'},
    'memory_mts': {'value': 3200, 'source': 'S1 (Freq (MT/s) 3200); S2 (MEM_FREQ=3200 MT/s)'},
    'memory_channels_per_socket': {'value': 8, 'source': 'S1; S2 (N_CHANNELS=8, BUS_WIDTH=64)'},
    'dimms_per_channel': {'value': None, 'source': 'not stated'},
    'numa_mode': {'value': None, 'source': 'NPS setting not stated'},
    'socket_links': {'value': 'none (1 socket)', 'source': 'S1'},
    'cxl_devices': {'value': 'none', 'source': 'Zen 2 has no CXL'}},
   extra_sources={'S3': {'url': 'https://codeyarns.com/tech/2021-03-06-amd-epyc-7002-processors.html', 'title': 'AMD EPYC 7002 processors (codeyarns)', 'date': '2021-03-06', 'quote_or_location': "'8 of the chiplets are each called CCD ... Each CCD is composed of 2 CCX' ; 'Each CCX has 4 Zen2 cores and 16MB of L3 cache' ; 'Each Zen2 core has ... 512KB 8-way L2 cache'"}},
   notes_extra='Doubt: for this AMD system the processed CSV column rd_percentage_actual_mean is 0.0 on every row (the AMD uncore counter used, dram_channel_data_controller_total, does not split reads from writes), so read_pct_rounded here is the nominal mix of the Mess kernel, not a measured read share. Every mix reaches about the same ~134-144 GB/s ceiling, unlike the Intel systems, which supports that the mix labels may not be reliable for this system.'),
 'EPEEC4': dict(id='epeec4-xeon-gold5218-2s', sysdir='Systems/EPEEC4',
   machine='BSC EPEEC4 system, 2 x Intel Xeon Gold 5218 (Cascade Lake), as listed by the Mess-Results README (not an FD.io CSIT machine)',
   spec={
    'sockets': {'value': 2, 'source': 'S1 (Sockets 2)'},
    'cpu_model': {'value': 'Intel Xeon Gold 5218', 'source': 'S1'},
    'microarchitecture': {'value': 'Cascade Lake', 'source': 'S1'},
    'cores_per_socket': {'value': 16, 'source': 'S1 (Cores / Socket 16)'},
    'frequency_ghz': {'value': 2.30, 'source': 'S1 (Frequency (GHz) 2.30); S2 CPU_FREQ=2.779692 (measured by Mess, GHz)'},
    'dies_per_socket': {'value': 1, 'source': 'monolithic die (Cascade Lake); not stated by S1'},
    'memory_kind': {'value': 'DDR4', 'source': 'S1'},
    'memory_mts': {'value': 2933, 'source': 'S1 (Freq (MT/s) 2933); S2 (MEM_FREQ=2933 MT/s). Doubt: Intel lists DDR4-2666 as the Gold 5218 maximum, so 2933-rated DIMMs probably run at 2666 (not verified)'},
    'memory_channels_per_socket': {'value': 6, 'source': 'S1; S2 (N_CHANNELS=6)'},
    'dimms_per_channel': {'value': None, 'source': 'not stated'},
    'numa_mode': {'value': None, 'source': 'SNC setting not stated'},
    'socket_links': {'value': None, 'source': 'UPI count/rate not stated by the source'},
    'cxl_devices': {'value': 'none', 'source': 'Cascade Lake has no CXL'}},
   extra_sources={}, notes_extra=''),
 'MN5/MN5-ACC': dict(id='mn5-acc-xeon-8460yplus-2s', sysdir='Systems/MN5/MN5-ACC',
   machine='MareNostrum 5 accelerated partition (ACC) node host CPUs, 2 x Intel Xeon Platinum 8460Y+ (Sapphire Rapids) -- NOT the MN5 general-purpose (GPP) 8480+ nodes, whose results were not opened',
   spec={
    'sockets': {'value': 2, 'source': 'S1 (Sockets 2)'},
    'cpu_model': {'value': 'Intel Xeon Platinum 8460Y+', 'source': 'S1'},
    'microarchitecture': {'value': 'Sapphire Rapids', 'source': 'S1'},
    'cores_per_socket': {'value': 40, 'source': 'S1 (Cores / Socket 40)'},
    'frequency_ghz': {'value': 2, 'source': 'S1 (Frequency (GHz) 2); S2 CPU_FREQ=2.793867 (measured by Mess)'},
    'dies_per_socket': {'value': '4 compute tiles (Sapphire Rapids XCC); not stated by S1', 'source': 'general SPR XCC package knowledge, not verified for this SKU here'},
    'memory_kind': {'value': 'DDR5', 'source': 'S1'},
    'memory_mts': {'value': 4800, 'source': 'S1 (Freq (MT/s) 4800); S2 (MEM_FREQ=4800 MT/s)'},
    'memory_channels_per_socket': {'value': 8, 'source': 'S1; S2 (N_CHANNELS=8)'},
    'dimms_per_channel': {'value': None, 'source': 'not stated'},
    'numa_mode': {'value': None, 'source': 'SNC setting not stated'},
    'socket_links': {'value': None, 'source': 'UPI count/rate not stated by the source'},
    'cxl_devices': {'value': None, 'source': 'not stated'}},
   extra_sources={}, notes_extra='The README of this system shows a Remote Memory section, but the repository snapshot holds only local/ data for MN5-ACC.'),
}
for key, s in systems.items():
    d = s['sysdir']
    plot = show(f"{d}/local/plotter.txt")
    rows = list(csv.DictReader(io.StringIO(show(f"{d}/local/processed/memory_curves.csv"))))
    g = collections.defaultdict(list)
    for r in rows: g[r['read_pct_rounded']].append(r)
    meas = []
    for k in sorted(g, key=lambda k: -float(k)):
        pts = sorted(g[k], key=lambda r: -float(r['pause']))
        meas.append({'figure': 'loaded_latency', 'mix': f"{float(k):g}% reads (read_pct_rounded={k})",
          'scope': 'cores of one socket reading/writing that socket\'s local memory (MEMORY_BINDING=local); core count used not stated in the files',
          'columns': ['pause', 'bandwidth_mean_GBps', 'latency_mean_ns', 'rd_percentage_actual_mean'],
          'points': [[float(r['pause']), float(r['bandwidth_mean']), float(r['latency_mean']), float(r['rd_percentage_actual_mean'])] for r in pts],
          'tool': 'Mess benchmark 2.0 (bsc-mem), processed by its plotter', 'source': 'S2'})
    # idle latency: the max-pause point of the 100% (or highest) read curve
    top = max(g, key=float)
    idle = max(g[top], key=lambda r: float(r['pause']))
    meas.insert(0, {'figure': 'idle_latency_ns', 'from_node': 'socket 0 cores', 'to_node': 'local memory', 'value': float(idle['latency_mean']),
       'note': f"unloaded point of the {float(top):g}%-read curve (pause={idle['pause']}, bandwidth_mean={idle['bandwidth_mean']}); Mess pointer-chase latency, not MLC",
       'tool': 'Mess benchmark 2.0', 'source': 'S2'})
    maxrow = max(g[top], key=lambda r: float(r['bandwidth_mean']))
    meas.insert(1, {'figure': 'peak_injection_gbps', 'mix': f"{float(top):g}% reads (Mess)", 'value': float(maxrow['bandwidth_mean']),
       'note': f"largest bandwidth_mean on the {float(top):g}%-read curve (pause={maxrow['pause']}, latency_mean={maxrow['latency_mean']}); one socket, local", 'tool': 'Mess benchmark 2.0', 'source': 'S2'})
    if '50.0' in g and top != '50.0':
        m50 = max(g['50.0'], key=lambda r: float(r['bandwidth_mean']))
        meas.insert(2, {'figure': 'peak_injection_gbps', 'mix': '50% reads (Mess, ~1:1)', 'value': float(m50['bandwidth_mean']),
          'note': f"largest bandwidth_mean on the 50%-read curve (pause={m50['pause']}, latency_mean={m50['latency_mean']}); one socket, local", 'tool': 'Mess benchmark 2.0', 'source': 'S2'})
    out = {'id': s['id'], 'machine': s['machine'], 'spec': s['spec'], 'measurements': meas,
      'sources': {
        'S1': {'url': f"https://github.com/bsc-mem/Mess-Results/blob/{COMMIT}/{d}/README.md", 'title': f"Mess-Results, {key} README (System Overview table)", 'date': 'commit 2026-02-24', 'quote_or_location': 'System Overview table: ' + [l for l in show(f'{d}/README.md').splitlines() if l.startswith('| ') and 'Model' not in l and '---' not in l][0]},
        'S2': {'url': f"https://github.com/bsc-mem/Mess-Results/blob/{COMMIT}/{d}/local/processed/memory_curves.csv", 'title': f"Mess-Results, {key} local processed bandwidth-latency curves (memory_curves.csv) and plotter.txt", 'date': 'commit 2026-02-24', 'quote_or_location': 'CSV columns read_pct_rounded,pause,bandwidth_mean,bandwidth_std,rd_percentage_actual_mean,latency_mean,latency_std,...; plotter.txt: ' + '; '.join(plot.split())},
        **s['extra_sources']},
      'notes': ('Mess bandwidth-latency curves: each point is one (read-share, pause) setting of the Mess traffic generator; bandwidth_mean is in GB/s and latency_mean in ns as written by the Mess plotter (units per the Mess project, the CSV has no unit row). Values copied exactly from the CSV (all rows, grouped by read_pct_rounded, highest pause = lowest load first). '
                'The idle_latency_ns and peak_injection_gbps entries are picked from the same CSV rows (no arithmetic) and say which row. These are Mess figures, not MLC: Mess latency is a pointer chase under load generated by the other cores. ' + s['notes_extra'])}
    fn = f"/work/wt/corpus-draft/{s['id']}.json"
    json.dump(out, open(fn, 'w'), indent=1)
    print(fn, len(meas), meas[0]['value'], meas[1]['value'])
