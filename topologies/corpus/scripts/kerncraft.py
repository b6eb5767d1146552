import json, subprocess, yaml, re
REPO = '/work/.mirror/RRZE-HPC+kerncraft/repo'
HEAD = '5d1cc67bd785700ec154bf1ba8a5c2bab8f11743'
def show(p): return subprocess.check_output(['git', '-C', REPO, 'show', f'HEAD:{p}']).decode()
def last(p): return subprocess.check_output(['git', '-C', REPO, 'log', '-1', '--format=%H %ad', '--date=short', '--', p]).decode().split()
files = {
 'ARMv8_ThunderX2-CN9980': dict(id='thunderx2-cn9980-2s', machine='2 x Marvell/Cavium ThunderX2 CN99xx (ARMv8, Vulcan), host warmup.rrze.uni-erlangen.de, SMT off; kerncraft example machine file', extra='memory kind / channel count not stated in the file (the file cites WikiChip for the CN9980: 8 x DDR4-2666 per socket -- not opened here). NUMA: 2 nodes (numactl -H in machine state: node sizes 64334 / 64507 MB, distances 10/20). L3 32 MB per socket (memory hierarchy: L3 32.00 MB, 2 groups of 32 cores).'),
 'A64FX_qpace4': dict(id='a64fx-qpace4-1s-4cmg', machine='Fujitsu A64FX node of QPACE4 (Univ. Regensburg), 48 cores in 4 core-memory groups (kerncraft models each CMG as a "socket": sockets 4 x 12 cores), HBM2; kerncraft example machine file', extra='kerncraft writes "sockets: 4, cores per socket: 12" for the 4 CMGs of one A64FX chip; L2 8 MB per CMG (memory hierarchy: L2 8.00 MB, 4 groups of 12 cores); cache line 256 B. Memory kind (HBM2, 4 stacks) is not stated in the file -- datasheet knowledge, not verified here. The benchmark runs on the first "socket" = one CMG with its own HBM2 stack.'),
 'SkylakeSP_Gold-6148_SNC': dict(id='skylake-gold6148-2s-snc2', machine='2 x Intel Xeon Gold 6148 (Skylake-SP), Sub-NUMA Clustering on (2 NUMA domains of 10 cores per socket); kerncraft example machine file (the SNC-off file of the same CPU is already in the project data)', extra='Compare with the project copy of SkylakeSP_Gold-6148.yml (SNC off) in /work/shared/data/kerncraft/: same CPU model, other NUMA mode.'),
 'BroadwellEP_E5-2697v4_CoD': dict(id='broadwell-e5-2697v4-2s-cod', machine='2 x Intel Xeon E5-2697 v4 (Broadwell-EP), Cluster-on-Die on (2 NUMA domains of 9 cores per socket); kerncraft example machine file', extra=''),
}
for f, m in files.items():
    p = f'examples/machine-files/{f}.yml'
    t = show(p)
    d = yaml.safe_load(t)
    c, date = last(p)
    src = {'url': f'https://github.com/RRZE-HPC/kerncraft/blob/{HEAD}/{p}', 'title': f'kerncraft example machine file {f}.yml', 'date': f'{date} (last commit touching the file: {c})', 'quote_or_location': "keys 'benchmarks: measurements: MEM: <threads per core>: results:' (likwid-bench, GB/s per core count of socket 0), top-level keys for the topology, 'machine state' for numactl/likwid-topology"}
    spec = {}
    for k in ['model name', 'model type', 'clock', 'sockets', 'cores per socket', 'threads per core', 'NUMA domains per socket', 'cores per NUMA domain']:
        if k in d and d[k] is not None:
            spec[k.replace(' ', '_')] = {'value': d[k], 'source': f"S1 (top-level key '{k}')"}
    caches = []
    for lvl in d['memory hierarchy']:
        if lvl.get('level') != 'MEM':
            caches.append({'level': lvl.get('level'), 'size_per_group': lvl.get('size per group'), 'groups': lvl.get('groups'), 'cores_per_group': lvl.get('cores per group')})
    spec['caches'] = {'value': caches, 'source': "S1 ('memory hierarchy')"}
    ms = d.get('machine state')
    if isinstance(ms, str):
        nm = re.search(r'available: .*?node distances:.*?\n(?:.*\n){0,%d}' % 10, ms, re.S)
        if nm:
            spec['numactl_H'] = {'value': nm.group(0).strip().splitlines()[:24], 'source': "S1 ('machine state', section NUMA Topology)"}
        mt = re.search(r'MemTotal:\s+(\d+) kB', ms)
        if mt:
            spec['memory_total_kib'] = {'value': int(mt.group(1)), 'source': "S1 ('machine state', MemTotal)"}
    meas = []
    for tpc, v in d['benchmarks']['measurements']['MEM'].items():
        cores = v['cores']
        for kern, vals in v['results'].items():
            pts = [[n, float(str(x).split()[0])] for n, x in zip(cores, vals)]
            meas.append({'figure': 'bandwidth_gbps', 'from_node': 'n cores of socket 0 (likwid-bench workgroup S0, filled in likwid order: first NUMA domain first)', 'to_node': 'memory first-touched by the worker threads (local)',
                         'mix': f'likwid-bench {kern} kernel (bytes explicitly loaded+stored, no write-allocate counted)', 'threads_per_core': tpc,
                         'columns': ['cores', 'GBps'], 'points': pts, 'value': pts[-1][1], 'value_note': 'value = last point (all cores of the socket)',
                         'tool': 'likwid-bench via kerncraft likwid_bench_auto (max of repetitions)', 'source': 'S1'})
    out = {'id': m['id'], 'machine': m['machine'], 'spec': spec, 'measurements': meas, 'sources': {'S1': src},
           'notes': 'Same kind of data as the five kerncraft files already in /work/shared/data/kerncraft (see its PROVENANCE.md for how the numbers are measured: one socket, n = 1..cores, max of repetitions, GB/s without write-allocate traffic). Numbers copied from the YAML strings ("16.18 GB/s" -> 16.18). ' + m['extra']}
    fn = f"/work/wt/corpus-draft/{m['id']}.json"
    json.dump(out, open(fn, 'w'), indent=1)
    print(fn, len(meas), list(spec.keys()))
