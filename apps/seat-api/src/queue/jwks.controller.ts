import { Controller, Get, Header, VERSION_NEUTRAL } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Public } from '../auth/auth.decorators';
import { AdmissionPasses } from './admission-passes';

/** The public keys other services check admission passes with (RFC 7517, at the well-known path). */
@ApiTags('queue')
@Controller({ version: VERSION_NEUTRAL })
@Public()
export class JwksController {
  constructor(private readonly passes: AdmissionPasses) {}

  @Get('.well-known/jwks.json')
  @Header('cache-control', 'public, max-age=300')
  @ApiOperation({
    summary: 'The keys admission passes are signed with (JWKS)',
    description:
      'ES256 keys by kid: a service that takes passes checks their signature, aud (the event), sub and exp',
  })
  @ApiResponse({ status: 200, description: '{ keys: [JWK] }' })
  jwks() {
    return this.passes.jwks;
  }
}
