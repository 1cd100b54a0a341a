import { Controller, Get, Header, VERSION_NEUTRAL } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Public } from '../auth/auth.decorators';
import { AdmissionPasses } from './admission-passes';

/** One public key: an EC P-256 key for ES256 (RFC 7517, 7518). */
export class JwkView {
  @ApiProperty({ enum: ['EC'] }) kty!: 'EC';
  @ApiProperty({ enum: ['P-256'] }) crv!: 'P-256';
  @ApiProperty({ description: 'base64url' }) x!: string;
  @ApiProperty({ description: 'base64url' }) y!: string;
  @ApiProperty({ description: 'the kid passes name in their header' }) kid!: string;
  @ApiProperty({ enum: ['ES256'] }) alg!: 'ES256';
  @ApiProperty({ enum: ['sig'] }) use!: 'sig';
}

export class JwksView {
  @ApiProperty({ type: [JwkView] }) keys!: JwkView[];
}

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
  @ApiResponse({ status: 200, type: JwksView })
  admissionPassKeys(): JwksView {
    return this.passes.jwks as JwksView;
  }
}
