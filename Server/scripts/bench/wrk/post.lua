-- POST the benchmark's evaluation context with the token (and If-None-Match when BENCH_ETAG is set).
wrk.method = "POST"
wrk.body = '{"context": {"targetingKey": "user-42", "email": "ann@example.com", "plan": "premium"}}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("BENCH_TOKEN")
local etag = os.getenv("BENCH_ETAG")
if etag ~= nil and etag ~= "" then
    wrk.headers["If-None-Match"] = etag
end
