<?php
// The whole article list as a PHP shop reads it, with curl or with file_get_contents (PHP's http stream
// wrapper), then json_decode. Prints {"articles": N, "sha256": "..."} or {"error": "..."}; exits 0 either way.
// Usage: php long_list.php curl|stream URL TOKEN
[$_, $how, $url, $token] = $argv;

function with_curl(string $url, string $token): string {
    $ch = curl_init($url);
    curl_setopt_array($ch, [CURLOPT_RETURNTRANSFER => true, CURLOPT_HTTPHEADER => ["Authorization: Bearer $token"]]);
    $body = curl_exec($ch);
    if ($body === false) {
        throw new RuntimeException('curl error ' . curl_errno($ch) . ': ' . curl_error($ch));
    }
    $status = curl_getinfo($ch, CURLINFO_RESPONSE_CODE);
    if ($status !== 200) {
        throw new RuntimeException("status $status");
    }
    return $body;
}

function with_stream(string $url, string $token): string {
    $context = stream_context_create(['http' => ['header' => "Authorization: Bearer $token\r\n", 'protocol_version' => 1.1]]);
    $body = @file_get_contents($url, false, $context);
    if ($body === false) {
        throw new RuntimeException('file_get_contents failed: ' . (error_get_last()['message'] ?? '?'));
    }
    return $body;
}

try {
    $body = $how === 'curl' ? with_curl($url, $token) : with_stream($url, $token);
    $list = json_decode($body, true, 512, JSON_THROW_ON_ERROR);
    echo json_encode(['articles' => count($list['data']), 'sha256' => hash('sha256', $body)]);
} catch (Throwable $error) {
    echo json_encode(['error' => get_class($error) . ': ' . $error->getMessage()]);
}
