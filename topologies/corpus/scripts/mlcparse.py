"""Parse Intel MLC text output into corpus measurement entries (values copied exactly)."""
import re

def _num(s):
    return float(s)

def _matrix(lines, i):
    # find header line 'Numa node  0 1 ...' then rows
    while i < len(lines) and not re.match(r'^\s*(Numa node|Writer Numa Node)\s+\d', lines[i]):
        i += 1
    hdr = lines[i]
    cols = [int(x) for x in re.findall(r'\d+', hdr.split('Node')[-1] if 'Writer' in hdr else hdr.split('node', 1)[1])]
    rows = {}
    i += 1
    while i < len(lines):
        m = re.match(r'^\s*(\d+)\s+(.*)$', lines[i])
        if not m:
            break
        toks = m.group(2).split()
        rows[int(m.group(1))] = toks
        i += 1
    return cols, rows, i

def parse(text, tool, src, mb_to_gb=True):
    lines = text.splitlines()
    out = []
    i = 0
    n = len(lines)
    while i < n:
        l = lines[i]
        if re.search(r'Measuring idle latencies', l):
            access = 'random access' if 'random' in l else ('sequential access' if 'sequential' in l else 'mlc default access pattern (no random/sequential wording)')
            cols, rows, i = _matrix(lines, i + 1)
            for r, toks in rows.items():
                for c, v in zip(cols, toks):
                    out.append({'figure': 'idle_latency_ns', 'from_node': r, 'to_node': c, 'value': _num(v), 'access': access, 'tool': tool + ' --latency_matrix (default run)', 'source': src})
            continue
        if re.search(r'Measuring (Peak Injection )?(Peak )?Memory Bandwidths for the system', l) or 'Measuring Peak Memory Bandwidths' in l or 'Measuring Maximum Memory Bandwidths' in l:
            variant = 'max_bandwidth' if 'Maximum' in l else 'peak_injection_bandwidth'
            i += 1
            while i < n and ':' in lines[i] or (i < n and lines[i].strip().startswith(('Bandwidths', 'Using', 'Will'))):
                m = re.match(r'^\s*(ALL Reads|3:1 Reads-Writes|2:1 Reads-Writes|1:1 Reads-Writes|Stream-triad like)\s*:\s*([\d.]+)', lines[i])
                if m:
                    v = _num(m.group(2))
                    out.append({'figure': 'peak_injection_gbps', 'mix': m.group(1), 'value': round(v / 1000, 7), 'value_as_published': m.group(2) + ' MB/sec', 'variant': variant, 'scope': 'whole system, all threads, each thread to its local node', 'tool': tool, 'source': src})
                i += 1
            continue
        if 'Measuring Memory Bandwidths between nodes' in l:
            mix = 'read-only'
            j = i + 1
            while j < n and 'Numa node' not in lines[j]:
                if 'traffic type' in lines[j]:
                    mix = lines[j].strip()
                j += 1
            cols, rows, i = _matrix(lines, i + 1)
            for r, toks in rows.items():
                for c, v in zip(cols, toks):
                    out.append({'figure': 'bandwidth_gbps', 'from_node': r, 'to_node': c, 'value': round(_num(v) / 1000, 7), 'value_as_published': v + ' MB/sec', 'mix': mix, 'tool': tool + ' --bandwidth_matrix (all threads of the from_node cores)', 'source': src})
            continue
        if 'Measuring Loaded Latencies' in l:
            pts = []
            i += 1
            while i < n and not re.match(r'^\s*\d{5}\s', lines[i]):
                i += 1
            while i < n:
                m = re.match(r'^\s*(\d{5})\s+([\d.]+)\s+([\d.]+)', lines[i])
                if not m:
                    break
                pts.append([int(m.group(1)), _num(m.group(2)), _num(m.group(3))])
                i += 1
            out.append({'figure': 'loaded_latency', 'mix': 'read-only', 'scope': 'whole system, all threads, local memory', 'columns': ['inject_delay_ns', 'latency_ns', 'bandwidth_MBps'], 'points': pts, 'tool': tool + ' --loaded_latency', 'source': src})
            continue
        m = re.match(r'^\s*Local Socket (L2->L2 HITM?)\s+latency\s+([\d.]+)', l)
        if m:
            out.append({'figure': 'c2c_latency_ns', 'kind': 'Local Socket ' + m.group(1), 'value': _num(m.group(2)), 'tool': tool + ' --c2c_latency', 'source': src})
            i += 1
            continue
        m = re.match(r'^\s*Remote Socket (\S+) HITM latency \(data address homed in (writer|reader) socket\)', l)
        if m:
            kind = f'Remote Socket {m.group(1)} HITM, homed in {m.group(2)} socket'
            cols, rows, i = _matrix(lines, i + 1)
            for r, toks in rows.items():
                for c, v in zip(cols, toks):
                    if v == '-':
                        continue
                    out.append({'figure': 'c2c_latency_ns', 'kind': kind, 'writer_node': r, 'reader_node': c, 'value': _num(v), 'tool': tool + ' --c2c_latency', 'source': src})
            continue
        i += 1
    return out
