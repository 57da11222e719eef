import socket, sys, time
port = int(sys.argv[1])
SEP = b'\r\n\r\n'
def send(raw, wait=3.0):
    s = socket.create_connection(("127.0.0.1", port)); s.settimeout(wait); t = time.time()
    s.sendall(raw); data = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk: break
            data += chunk
            if b"\r\n\r\n" in data and (b"Content-Length" in data or b"content-length" in data):
                head, _, body = data.partition(b"\r\n\r\n")
                import re
                m = re.search(rb"(?i)content-length: *(\d+)", head)
                if m and len(body) >= int(m.group(1)): break
    except socket.timeout:
        return f"no answer in {wait}s ({len(data)} bytes)"
    finally: s.close()
    first = data.split(b"\r\n",1)[0]
    ct = [l for l in data.split(b"\r\n\r\n")[0].split(b"\r\n") if l.lower().startswith(b"content-type")]
    body = data.partition(SEP)[2][:150]
    return f"{first!r} {ct} body={body!r} in {time.time()-t:.2f}s"
def post(mode, body: bytes):
    return (f"POST /{mode}/orders?delay=0 HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode() + body
for mode in ["virtual","worker","reactive"]:
    print(mode, "dup out-of-range first:", send(post(mode, b'{"customer":"a","sku":"b","quantity":5000,"quantity":1}')))
    print(mode, "dup valid:", send(post(mode, b'{"customer":"a","customer":"b","sku":"b","quantity":1}')))
    print(mode, "lone surrogate:", send(post(mode, b'{"customer":"\\uD800","sku":"b","quantity":1}')))
for path in ["/virtual/io?delay=0", "/reactive/io?delay=0", "/worker/io?delay=0", "/delay/0"]:
    for host in ["evil.com%3F", "a%zz"]:
        print(path, "Host:", host, send(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode()))
# h2c prior knowledge: preface + empty SETTINGS
print("h2c preface:", send(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00", 2.0))
