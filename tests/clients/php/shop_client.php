<?php
// A PHP shop (WooCommerce, Magento, Shopware plugins) calling the gateway the usual way: curl and
// json_decode($body, true), no charset handling of its own. Runs tests/clients/scenario.py's steps and
// prints the result as JSON.
//
//   php shop_client.php http://127.0.0.1:8000 shop a-long-secret

declare(strict_types=1);

[, $baseUrl, $user, $secret] = $argv;

const FIRST_NAME = 'Zoë';
const LAST_NAME = 'Müller-Lüdenscheidt';
const STREET = 'Löwenstrasse 12';
const PLACE = 'Zürich';
const COMMENT = 'Lieferung bitte 🚚 — 12 € Trinkgeld';

$result = ['responses' => []];

function call(string $label, int $expected, string $method, string $url, array $options = []): array
{
    global $result;
    $ch = curl_init($url);
    $headers = [];
    curl_setopt($ch, CURLOPT_CUSTOMREQUEST, $method);
    curl_setopt($ch, CURLOPT_RETURNTRANSFER, true);
    curl_setopt($ch, CURLOPT_TIMEOUT, 30);
    if (isset($options['basic'])) {
        curl_setopt($ch, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
        curl_setopt($ch, CURLOPT_USERPWD, $options['basic']);
    }
    if (isset($options['token'])) {
        $headers[] = 'Authorization: Bearer ' . $options['token'];
    }
    if (isset($options['body'])) {
        $headers[] = 'Content-Type: application/json';
        curl_setopt($ch, CURLOPT_POSTFIELDS, json_encode($options['body']));
    }
    curl_setopt($ch, CURLOPT_HTTPHEADER, $headers);
    $body = curl_exec($ch);
    if ($body === false) {
        throw new RuntimeException("$label: " . curl_error($ch));
    }
    $status = curl_getinfo($ch, CURLINFO_RESPONSE_CODE);
    $result['responses'][] = [$label, $status, curl_getinfo($ch, CURLINFO_CONTENT_TYPE)];
    curl_close($ch);
    $data = json_decode($body, true);
    if ($data === null) {
        throw new RuntimeException("$label: json_decode failed: " . json_last_error_msg());
    }
    if ($status !== $expected) {
        throw new RuntimeException("$label: $status $body");
    }
    return $data;
}

try {
    $token = call('POST /www/token', 200, 'POST', "$baseUrl/www/token", ['basic' => "$user:$secret"]);
    $result['token_type'] = $token['token_type'];
    $bearer = $token['access_token'];

    $articles = call('GET /www/artikel?limit=5', 200, 'GET', "$baseUrl/www/artikel?limit=5", ['token' => $bearer]);
    $result['articles'] = array_map(fn (array $a): array => [$a['ArtNr'], $a['ArtBez']], $articles['data']);

    $customer = [
        'GrundDaten' => ['WaehrAbk' => 'CHF', 'FAKTZahlArt' => 'R'],
        'Adressen' => [
            'KontaktAdr' => [
                'AdrSprache' => 'ger', 'AdrAnrede' => 2, 'AdrVorname' => FIRST_NAME, 'AdrName' => LAST_NAME,
                'AdrAdresse1' => STREET, 'OrtLand' => 'CH', 'OrtName' => PLACE, 'OrtPLZ' => '8001',
            ],
        ],
    ];
    $created = call('POST /www/kunden', 201, 'POST', "$baseUrl/www/kunden", ['body' => $customer, 'token' => $bearer]);
    $debiNr = $created['data']['DebiNr'];
    $order = [
        'GrundDaten' => ['KundNr' => $debiNr, 'AuftKomment' => COMMENT],
        'Positionen' => [['ArtNr' => 'A-000001', 'Menge' => 2]],
    ];
    $placed = call('POST /www/auftrag', 201, 'POST', "$baseUrl/www/auftrag", ['body' => $order, 'token' => $bearer]);
    $auftNr = $placed['data']['AuftNr'];
    $result['DebiNr'] = $debiNr;
    $result['AuftNr'] = $auftNr;

    $kunde = call('GET /www/kunden/{DebiNr}', 200, 'GET', "$baseUrl/www/kunden/$debiNr", ['token' => $bearer]);
    $result['KundBez'] = $kunde['data']['KundBez'];
    $adressen = call('GET /www/adressen?debinr={DebiNr}', 200, 'GET', "$baseUrl/www/adressen?debinr=$debiNr", ['token' => $bearer]);
    $contact = $adressen['data']['KundKontakt'][0];
    $result['KundKontakt'] = array_intersect_key(
        $contact,
        array_flip(['AdrVorname', 'AdrName', 'AdrAdresse1', 'OrtName', 'OrtPLZ', 'OrtLand'])
    );
    $auftrag = call('GET /www/auftrag/{AuftNr}', 200, 'GET', "$baseUrl/www/auftrag/$auftNr", ['token' => $bearer])['data'];
    $address = $auftrag['Adressen']['KontaktAdr'];
    $result['order'] = [
        'KundNr' => $auftrag['GrundDaten']['KundNr'],
        'AuftKomment' => $auftrag['GrundDaten']['AuftKomment'],
        'KontaktAdr' => array_intersect_key($address, array_flip(['AdrVorname', 'AdrName', 'OrtName'])),
        'PosBez' => $auftrag['Positionen'][0]['PosBez'],
    ];

    // What was sent must come back byte for byte (UTF-8 strings compared with ===).
    $sentAndRead = [
        ['AdrVorname', FIRST_NAME, $contact['AdrVorname']],
        ['AdrName', LAST_NAME, $contact['AdrName']],
        ['AdrAdresse1', STREET, $contact['AdrAdresse1']],
        ['OrtName', PLACE, $contact['OrtName']],
        ['AuftKomment', COMMENT, $auftrag['GrundDaten']['AuftKomment']],
        ['KontaktAdr.AdrVorname', FIRST_NAME, $address['AdrVorname']],
        ['KontaktAdr.AdrName', LAST_NAME, $address['AdrName']],
        ['KontaktAdr.OrtName', PLACE, $address['OrtName']],
    ];
    $result['mismatches'] = array_values(array_filter($sentAndRead, fn (array $c): bool => $c[2] !== $c[1]));
    $exitCode = 0;
} catch (Throwable $error) {
    $result['error'] = (string) $error;
    $exitCode = 1;
}
echo json_encode($result, JSON_UNESCAPED_SLASHES | JSON_INVALID_UTF8_SUBSTITUTE), "\n";
exit($exitCode);
