<?php
// The README's PHP receiver check, run by test_php_verifier.py as a CGI script is run: the request's
// headers in $_SERVER (HTTP_WEBHOOK_ID, ...), its body on standard input, the secret in SECRET.
$secret = getenv('SECRET');
$body = file_get_contents('php://stdin');
$id = $_SERVER['HTTP_WEBHOOK_ID'] ?? '';
$timestamp = $_SERVER['HTTP_WEBHOOK_TIMESTAMP'] ?? '';
$signatures = $_SERVER['HTTP_WEBHOOK_SIGNATURE'] ?? '';

$key = base64_decode(substr($secret, strlen('whsec_')));
$expected = base64_encode(hash_hmac('sha256', "$id.$timestamp.$body", $key, true));
$valid = false;
foreach (explode(' ', $signatures) as $signature) {
    [$version, $value] = array_pad(explode(',', $signature, 2), 2, '');
    $valid = $valid || ($version === 'v1' && hash_equals($expected, $value));
}
if (!$valid || abs(time() - (int) $timestamp) > 300) {
    echo "refused\n";
    exit(1);
}
$event = json_decode($body, true);
echo $id, ' ', $event['type'], ' ', $event['data']['AuftNr'], "\n";
